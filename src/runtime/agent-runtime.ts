import type EventEmitter from "eventemitter3";
import type { AgentDefinition } from "../agents/agent-definition.js";
import type { UserPart } from "../messages/message.js";
import type { LoopEvent } from "../loop/loop-event.js";
import type { ApprovalRequest, LoopResult } from "../loop/loop-types.js";
import type { ChatContext } from "../policy/tool-policy.js";
import type { SessionSelector } from "../sessions/resolve-session.js";
import type { SessionStore } from "../sessions/session-store.js";
import type { AgentRegistry } from "../agents/agent-registry.js";

/** What a host sends to an agent. */
export interface SendInput {
  agentId: string;
  content: string | UserPart[];
  /** @default "latest-or-create" */
  session?: SessionSelector;
  /** @default { kind: "thread" } */
  chatContext?: ChatContext;
  signal?: AbortSignal;
}

/** The outcome of one turn. */
export interface TurnResult extends LoopResult {
  sessionId: string;
  agentId: string;
  /** Whether the session was created for this turn. */
  created: boolean;
  runId: string;
}

/** A loop event with where it came from, a per-runtime monotonic `seq` and a timestamp (ms). */
export type RuntimeEvent = LoopEvent & { sessionId: string; agentId: string; runId: string; seq: number; ts: number };

/** An approval waiting for a decision, as stored. */
export interface PendingApproval {
  requestId: string;
  sessionId: string;
  agentId: string;
  runId: string;
  request: ApprovalRequest;
  /** When the request was stored (ISO). */
  at: string;
}

/** Events the runtime emits on `runtime.events`. */
export type RuntimeEvents = { event: [RuntimeEvent] };

/** The host-facing runtime. */
export interface AgentRuntime {
  /** Runs one turn; queued per session (one message at a time, in arrival order). */
  send(input: SendInput): Promise<TurnResult>;
  /** The same as `send`, as events; ends with the turn's `done`, after its end record is stored. */
  stream(input: SendInput): AsyncIterable<RuntimeEvent>;
  /**
   * Records `text` from agent `origin` as a `<system_message>` in the target session and, unless
   * `silent`, runs a turn on it. Resolves once recorded and, unless silent, once that turn finished.
   */
  postSystemMessage(target: { sessionId?: string; agentId?: string }, text: string, options: { origin: string; silent?: boolean }): Promise<void>;
  /** Every session's events. */
  events: EventEmitter<RuntimeEvents>;
  store: SessionStore;
  registry: AgentRegistry;
  /** Approvals awaiting a decision, read from the store (so also those of other processes). */
  pendingApprovals(query?: { sessionId?: string }): Promise<PendingApproval[]>;
  /** Decides an approval and, once every approval of that turn is decided, resumes the turn. */
  resolveApproval(requestId: string, decision: { approved: boolean; reason?: string }): Promise<TurnResult>;
  /** Waits for queued turns to finish; later calls reject. */
  close(): Promise<void>;
}

/** Re-exported for convenience: the agent type the runtime runs. */
export type { AgentDefinition };

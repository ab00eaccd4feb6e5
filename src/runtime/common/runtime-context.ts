import type { PromptDigests, StoredPrompts } from "../turn/model-call-records.js";
import type { PlanReader } from "../roles/mode-tools.js";
import type { RoleDefinition } from "../../modes/roles.js";
import type { RoleLookup } from "../../modes/role-lookup.js";
import type { EventEmitter } from "eventemitter3";
import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { PromptSection, PromptSectionSource, Skill } from "../../agents/build-system-prompt.js";
import type { BudgetLimits } from "../../contracts/budget.js";
import type { ApprovalHandler, ApprovalRequest } from "../../contracts/loop-result.js";
import type { ChatContext, ToolPolicy } from "../../contracts/tool-policy.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { PricingTable, Provider } from "../../contracts/provider.js";
import type { SessionStore, SessionSummary } from "../../contracts/session-store.js";
import type { Tool } from "../../contracts/tool.js";
import type { AuditEntry } from "../../contracts/audit-entry.js";
import type { RuntimeHooks } from "../../contracts/hooks.js";
import type { DispatchedTurn, RuntimeEvent, RuntimeEvents, TurnResult } from "../../contracts/agent-runtime.js";
import type { KeyedSerializer } from "../../internal/keyed-serializer.js";
import type { UserMessage } from "../../contracts/message.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { SessionStateCache } from "../session/session-state-cache.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { HeldLease } from "../session/session-lease.js";
import type { TurnRequest } from "./runtime-core.js";
import type { PendingQueue } from "../turn/pending-queue.js";
import type { ExternalAgentHandler } from "../turn/external-agent.js";

/** What a `policy` function is told of the turn it makes the policy for. */
export interface PolicyTurn<C = JsonValue> {
  chatContext: ChatContext;
  /** The turn's host context (`SendInput.context`). */
  context?: C;
}

/** Options of `createAgentRuntime`. `C` types the host context of `send` (`SendInput.context`). */
export interface AgentRuntimeOptions<C = JsonValue> {
  registry: AgentRegistry;
  store: SessionStore;
  /** Providers by id; an agent picks one with `chat.provider`. */
  providers: Record<string, Provider>;
  /** @default the only provider when exactly one is given, else `"openai"` when registered */
  defaultProvider?: string;
  /** Model for agents without `chat.model`. */
  defaultModel?: string;
  /**
   * Tools the host registers (agents see them through their scope and the policy). A function is
   * called at the start of every turn (tools that change, e.g. an MCP server's: `toolsWithMcp`);
   * while it returns the same array, prepared toolbelts are reused.
   */
  tools?: Tool<any, any, C>[] | (() => Tool<any, any, C>[]);
  /** CLI skills listed in prompts of agents with `toolExposure` `skills`/`mixed`. */
  skills?: Skill[];
  /**
   * The tool policy, or a function making it for each turn from the session (its `scope`), the
   * agent and the turn (`chatContext`, and the host `context` of `send`).
   * @default defaultPolicy(chatContext?.kind ?? "thread")
   */
  policy?: ToolPolicy | ((session: SessionSummary, agent: AgentDefinition, turn: PolicyTurn<C>) => ToolPolicy);
  /** Runtime-wide limits; an agent's own `budget` overrides them. */
  budget?: Partial<BudgetLimits>;
  /**
   * Decides approvals; `info` has the call's session, agent, scope, run and host `context`.
   * Without one, a call that needs approval suspends its turn.
   */
  approve?: ApprovalHandler<C>;
  /**
   * Told of every tool call as it ends (every tool call is audited): one
   * {@link AuditEntry} per call of every turn, at every depth, refused and denied calls included,
   * after the entry is stored in the session's log (`runtime.auditLog`). Entries never hold the
   * arguments or results, only a digest of the arguments. The turn waits for a returned promise
   * before its `done` (not before its next step); a callback that throws or rejects is reported as
   * a `warning` event (code `audit_failed`) and never breaks the turn.
   * @default none (entries are still stored)
   */
  audit?: (entry: AuditEntry) => void | Promise<void>;
  /**
   * Handlers of agents with `type: "external"`, by agent id: each turn of such an agent (a message
   * sent to it, a delegated `agents_message`, a background start, a system message) is answered
   * by its handler instead of a model (see {@link ExternalAgentHandler}). An external agent with
   * no handler here runs as a chat agent (its `chat` provider and model). A key naming an unknown
   * agent, or one that is not external, is an `InvalidArgumentError` at creation.
   * @default none
   */
  external?: Record<string, ExternalAgentHandler>;
  /** Host-supplied prompt sections (artifacts, panels, ...). */
  promptSections?: (PromptSection | PromptSectionSource)[];
  /**
   * Hooks on every turn's lifecycle, at every depth: root turns, sub-tasks, delegated
   * (`agents_message`), background, task and dispatched turns (functions do not travel: each
   * process's runtime has its own). `prepareStep`, `stopWhen`, `beforeToolCall`, `afterToolCall`,
   * and the guardrails `guardInput` (before a turn's first model call: a block stores the turn as
   * `"blocked"` and its message stays out of later turns' context) and `guardOutput` (before the
   * final answer is stored). See {@link RuntimeHooks}. Turns of external agents run no model and
   * no hooks.
   * @default undefined (no hooks)
   */
  hooks?: RuntimeHooks<C>;
  /** Prices per model (turns usage into cost and enables `maxCostUsd`). */
  pricing?: PricingTable;
  /** Per-call time limit for tools without their own. */
  toolTimeoutMs?: number;
  /**
   * Longest chain of nested `agents_message` hops: a whole number from 0 to 64 (delivery and
   * listing follow a chain that far; more is refused by `createAgentRuntime`). @default 3
   */
  maxDelegationDepth?: number;
  /**
   * When a session's estimated context reaches this many tokens, the next turn first resets it:
   * a reset marker with a summary note, then the turn runs on the note and the new message.
   * @default 200_000 (EMERGENCY_CONTEXT_LIMIT)
   */
  emergencyContextLimit?: number;
  /**
   * How many sessions' state the runtime keeps between turns. A kept session's next turn loads
   * only the records appended since (`load(sessionId, { afterSeq })`, so records written by other
   * processes are still seen) instead of its whole history. `0` loads every session afresh each turn.
   * @default 256
   */
  sessionCacheSize?: number;
  /**
   * Host roles beside the `planner` and `actor` presets (made with `defineRole`); an agent's
   * `role` may name any of them. A host role with a preset's name replaces the preset.
   * @default none
   */
  roles?: RoleDefinition[];
  /**
   * How long a session lease lasts before it must be renewed (stores with leases: SQLite,
   * Postgres). The runtime renews it every third of this while it works on the session; a
   * runtime that died holding one blocks the session for at most this long.
   * @default 30_000
   */
  leaseTtlMs?: number;
  /**
   * Longest wait for a session that another runtime (process) holds; then the call rejects with
   * `SessionBusyError`.
   * @default 600_000
   */
  leaseWaitMs?: number;
  /** Background agents one root turn may start, counting those they start in turn. @default 8 */
  maxBackgroundAgents?: number;
  /**
   * Longest chain of agent-to-agent hops (`send_agent_message`, `start_background_agent`) that
   * one root turn may set off; ends ping-pong between two agents. @default 8
   */
  maxAgentHops?: number;
  /**
   * The most events `stream()` holds for a reader that has not read them yet. The turn never
   * waits for its reader; a reader that falls this far behind gets the events queued so far, then
   * a `warning` event with code `stream_overflow` (carrying the `seq` of the first event it missed),
   * and then its stream ends, without `done`. The turn itself goes on and is stored as usual
   * (`send` and `runtime.events` are not affected). A reader that stops reading early is cut off
   * the same way, so an abandoned stream holds at most this many events.
   * @default 10_000
   */
  maxStreamBacklog?: number;
  /**
   * Told of every failure of work that nobody awaits, so none is lost silently: a background
   * agent's failure notice to its parent, a permission notice, an `agents_message` sent with
   * `mode: "async"` or a `send_agent_message` whose turn failed, a task's closing transition, a
   * lease release, and an `event` listener that threw. `info.code` says which. Failures of such
   * work for a session are also published as a `warning` event (same `code`) on
   * `runtime.events`; a listener's own failure is only told here. Must not throw (what it throws
   * is ignored).
   * @default none (the warning events are still published)
   */
  onError?: (error: unknown, info: RuntimeErrorInfo) => void;
}

/** What the runtime tells `onError` along with the error. */
export interface RuntimeErrorInfo {
  /**
   * What failed: `background_notice_failed`, `permission_notice_failed`, `agent_message_failed`,
   * `background_agent_failed`, `task_transition_failed`, `lease_release_failed` or `listener_failed`.
   */
  code: string;
  /** The session the failed work was for, when there is one. */
  sessionId?: string;
}

/**
 * What every part of one runtime shares: its options, store and registry, the per-session
 * queue, the session-state cache, the turns running in this process, and the runtime's own
 * operations (queue a turn, record a message, publish an event, report a failure).
 */
export interface RuntimeContext {
  options: AgentRuntimeOptions;
  registry: AgentRegistry;
  /** The host's store, wrapped once: its failures are `SessionStoreError`s, its appends fenced by a lease token. */
  store: GuardedSessionStore;
  /** The roles this runtime knows (presets and the host's). */
  roleOf: RoleLookup;
  events: EventEmitter<RuntimeEvents>;
  /** Per-session FIFO: work on one session runs one piece at a time, in arrival order. */
  inbox: KeyedSerializer;
  /** Sessions' state kept between turns. */
  states: SessionStateCache;
  /** Plans read by `create_artifact` calls, each parsed once per call. */
  plans: PlanReader;
  nextSeq: () => number;
  /** Sessions of approval requests stored by this process (others are found in the store). */
  approvalSessions: Map<string, string>;
  /** Prompt digests stored per session (see `ModelCallLog`). */
  storedPrompts: StoredPrompts;
  /** Digests of the prompts and tool lists seen (see `ModelCallLog`). */
  promptDigests: PromptDigests;
  /** Turns running in this process, by session: `setRole` and task cancels stop them. */
  running: Map<string, { controller: AbortController; reason: string | undefined }>;
  /** Set by `close()`: no new work is accepted. */
  closed: boolean;
  /** Messages waiting behind a session's pending decision (`ifPending: "queue"`). */
  readonly pendingQueue: PendingQueue;
  /** Longest `agents_message` chain. */
  maxDelegationDepth: number;
  /** Background agents one root turn may start, counting those they start. */
  maxBackgroundAgents: number;
  /** Longest chain of `send_agent_message` / background hops from one root turn. */
  maxAgentHops: number;
  /** Queues a turn; resolves with its result once it has run. */
  readonly runTurn: (request: TurnRequest) => Promise<TurnResult>;
  /** Where turns the runtime starts on its own go, when a dispatcher is installed (`setTurnDispatcher`). */
  dispatchTurn?: ((turn: DispatchedTurn) => Promise<void>) | undefined;
  /** Records a message in a session without running a turn (queued behind the session's turns). */
  record: (session: SessionSummary, message: UserMessage) => Promise<void>;
  /**
   * Runs `task` as the session's next piece of work: after the session's earlier work in this
   * process (inbox) and, with a store that has leases, while holding its lease.
   */
  withSession: <T>(sessionId: string, task: (lease: HeldLease) => Promise<T>) => Promise<T>;
  /**
   * The most recently updated session of `scope` (`undefined` = unscoped) that is not a
   * background agent's, not `except`, and whose agent `accept` takes.
   */
  foregroundSession: (
    scope: string | undefined,
    except: string,
    accept: (agent: AgentDefinition) => boolean,
  ) => Promise<SessionSummary | undefined>;
  /**
   * Emits `event` on `runtime.events`; a listener that throws is reported (`listener_failed`) and never breaks the
   * caller or the listeners after it.
   */
  emit: (event: RuntimeEvent) => void;
  /** Emits an event of no turn on `runtime.events` (e.g. `subagent_status`). */
  publish: (session: SessionSummary, event: LoopEvent) => void;
  /**
   * Runs a session-resolution step in call order with every other, so messages reach a session's inbox in the order
   * they were sent.
   */
  admit: <T>(step: () => Promise<T>) => Promise<T>;
  /**
   * Reports a failure of work nobody awaits (notices, async messages, listeners): `onError`, and a
   * `warning` event on `runtime.events` when the work was for a session. Never throws.
   */
  report: (code: string, error: unknown, session?: SessionSummary) => void;
  /** Told when a plan artifact was stored in `session`; returns the id of the task it moved, if any. */
  readonly onPlanReady: (session: SessionSummary, artifactId: string) => Promise<string | undefined>;
  /** Told when a `request_permission` call is presented for approval and when it is decided. */
  readonly onPermission: (
    phase: "requested" | "decided",
    request: ApprovalRequest,
    session: SessionSummary,
    decision?: { approved: boolean; reason?: string },
  ) => void;
}

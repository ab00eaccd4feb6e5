import type { AgentDefinition } from "../agents/agent-definition.js";
import type { AgentRegistry } from "../agents/agent-registry.js";
import type { UserMessage } from "../messages/message.js";
import type { ChatContext } from "../policy/tool-policy.js";
import type { SessionStore, SessionSummary } from "../sessions/session-store.js";
import type { RuntimeEvent, TurnResult } from "./agent-runtime.js";

/** A turn to queue on a session. */
export interface TurnRequest {
  agent: AgentDefinition;
  session: SessionSummary;
  created: boolean;
  input: UserMessage;
  chatContext: ChatContext;
  /** Agents waiting on this turn through `agents_message`, outermost first. */
  chain: readonly string[];
  /** Pre-assigned run id (so a caller can name the run before it starts). */
  runId?: string;
  signal?: AbortSignal;
  onEvent?: (event: RuntimeEvent) => void;
}

/** What the runtime's built-in agent tools need from it. */
export interface RuntimeCore {
  registry: AgentRegistry;
  store: SessionStore;
  /** Queues a turn; resolves with its result once it has run. */
  runTurn(request: TurnRequest): Promise<TurnResult>;
  /** Records a message in a session without running a turn (queued behind the session's turns). */
  record(session: SessionSummary, message: UserMessage): Promise<void>;
  /** The most recently updated session that is not a background agent's (excluding `except`). */
  foregroundSession(except?: string): Promise<SessionSummary | undefined>;
  /** Longest `agents_message` chain. */
  maxDelegationDepth: number;
  /** Runs a session-resolution step in call order with every other (see `createAgentRuntime`). */
  admit<T>(step: () => Promise<T>): Promise<T>;
}

/** Session attributes that mark a background agent's session. */
export interface BackgroundAttributes {
  background: true;
  parentSessionId: string;
  parentAgentId: string;
  /** Set once the parent was told of a failure (it is told once). */
  failureNotified?: true;
}

/** Whether a session belongs to a background agent. */
export function isBackground(session: SessionSummary): boolean {
  return session.attributes?.background === true;
}

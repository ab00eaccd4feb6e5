import type { JsonSchema, AnyZodSchema } from "../../contracts/json-schema.js";
import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { UserMessage } from "../../contracts/message.js";
import type { ChatContext } from "../../contracts/tool-policy.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { RuntimeEvent, TurnResult } from "../../contracts/agent-runtime.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { SessionState, TurnWaiter } from "../session/session-state.js";
import type { ResumeDecision } from "../approvals/approval-decision.js";
import type { HeldLease } from "../session/session-lease.js";
import type { TurnBudget } from "../../loop/budget.js";

/**
 * What a root turn and everything it starts in the background share: one user message can never
 * fan out without bound. Kept in memory; a turn handed to a dispatcher takes a share of what is
 * left with it (see `hand-off.ts`), so the limits hold across processes too.
 */
export interface LineageCounters {
  /** Background agents started so far. */
  backgroundAgents: number;
  /** Model calls made so far by every turn of the lineage. */
  llmCalls: number;
  /** Limit of `llmCalls`: the root turn's `maxTotalLlmCalls` (or a dispatched turn's share of it). */
  maxLlmCalls: number;
  /** Limit of `backgroundAgents`: the runtime's `maxBackgroundAgents` (or a dispatched turn's share of it). */
  maxBackgroundAgents: number;
}

/** The lineage of one turn: the shared counters and how many agent-to-agent hops led to it. */
export interface Lineage {
  counters: LineageCounters;
  /** `send_agent_message` / background hops from the root turn to this one. */
  hops: number;
  /** Set for a turn handed over by a dispatcher: its model calls are limited to its counters' share. */
  dispatched?: true;
}

/** A turn to queue on a session. */
export interface TurnRequest {
  agent: AgentDefinition;
  session: SessionSummary;
  created: boolean;
  input: UserMessage;
  chatContext: ChatContext;
  /** Root structured output (`SendInput.outputSchema`). */
  outputSchema?: AnyZodSchema | JsonSchema;
  /** Agents waiting on this turn through `agents_message`, outermost first. */
  chain: readonly string[];
  /** Pre-assigned run id (so a caller can name the run before it starts). */
  runId?: string;
  /** Only continue the crashed turn `runId` (never run `input`): its stored outcome when it is not open. */
  continueOnly?: true;
  signal?: AbortSignal;
  onEvent?: (event: RuntimeEvent) => void;
  /** Shared limits of the root turn this one descends from. @default a new lineage (a root turn) */
  lineage?: Lineage;
  /** The host's data for the turn (`SendInput.context`, checked and copied), stored on its start. */
  context?: JsonValue;
  /** The sync `agents_message` call waiting on this turn's answer (stored on its start). */
  waiter?: TurnWaiter;
  /**
   * The budget of the turn waiting on this one (a sync `agents_message`): this turn's budget checks and
   * counts in it too, so the waiting turn's limits cover it.
   */
  parentBudget?: TurnBudget;
  /** What to do when the session waits for a decision (`SendInput.ifPending`). @default "queue" */
  ifPending?: "queue" | "reject" | "supersede";
  /** Set on a queued message handed back once the decision was made (it does not queue behind the others again). */
  drained?: QueuedMessage;
}

/** A message waiting behind a session's pending decision. */
export interface QueuedMessage {
  request: TurnRequest;
  resolve: (result: TurnResult | Promise<TurnResult>) => void;
  reject: (error: unknown) => void;
  /** Handed back to run (its turn is in the session's inbox); it keeps its place until it starts. */
  released: boolean;
}

/** A session's suspended turn, as its state has it. */
export type Suspended = NonNullable<SessionState["suspended"]>;

/** How turns reach sessions: queued, recovered, resumed, settled. */
export interface SessionTurns {
  /** Queues a turn on its session; the session's state is read and repaired when its turn comes. */
  enqueue(request: TurnRequest): Promise<TurnResult>;
  /**
   * The session's state, after resuming a suspended turn whose approvals are all decided but that
   * never resumed (answering first its calls that wait on other agents whose turns ended;
   * `depth` counts the sessions of the chain already being recovered).
   */
  recoverDecided(session: SessionSummary, lease: HeldLease, lineage: Lineage, depth?: number): Promise<SessionState>;
  /**
   * Resumes `suspended`, the suspended turn of `state`, with its stored decisions (and `extra` ones, by tool-call id).
   */
  resumeSuspended(
    session: SessionSummary,
    state: SessionState,
    suspended: Suspended,
    lease: HeldLease,
    lineage: Lineage,
    extra: Record<string, ResumeDecision>,
  ): Promise<TurnResult>;
}

/** Session attributes that mark a background agent's session. */
export interface BackgroundAttributes {
  background: true;
  parentSessionId: string;
  parentAgentId: string;
  /** Set once the parent was told of a failure (it is told once). */
  failureNotified?: true;
  /** Where it is in its lifecycle (see `SubagentStatus`). */
  lifecycle?: "created" | "running" | "waiting_for_merge" | "completed" | "failed" | "closed";
  /** The only tools its turns get (`start_background_agent`'s `tools`, within its parent's). */
  toolSubset?: string[];
  /** Its time budget (`start_background_agent`'s `timeoutMs`) and when it ends (epoch ms): every turn stops there. */
  timeoutMs?: number;
  deadlineAt?: number;
}

/** Whether a session belongs to a background agent. */
export function isBackground(session: SessionSummary): boolean {
  return session.attributes?.background === true;
}

/** The tool names a background session is limited to (`toolSubset` attribute), or undefined. */
export function toolSubsetOf(session: SessionSummary): string[] | undefined {
  const subset = session.attributes?.toolSubset;
  return Array.isArray(subset) ? subset.filter((name): name is string => typeof name === "string") : undefined;
}

import type { JsonSchema, AnyZodSchema } from "../../contracts/json-schema.js";
import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { UserMessage } from "../../contracts/message.js";
import type { ChatContext } from "../../contracts/tool-policy.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { RuntimeEvent, TurnResult } from "../../contracts/agent-runtime.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { TurnWaiter } from "./session-state.js";
import type { Lineage } from "./lineage.js";
import type { TurnBudget } from "../../loop/budget.js";

/** A turn to queue on a session. */
export interface TurnRequest {
  agent: AgentDefinition;
  session: SessionSummary;
  created: boolean;
  /** The message the turn answers; absent only with `regenerate` (the stored message runs again). */
  input?: UserMessage;
  /** The host's id for `input` (`SendInput.messageId`), stored with it. */
  messageId?: string;
  /** Edit: the id of the user message `input` replaces (`SendInput.editOf`). */
  editOf?: string;
  /** Regenerate: the last user message runs again (`SendInput.regenerate`). */
  regenerate?: true;
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
  /**
   * A message of the host (`send`, `stream`, `postSystemMessage`): stored when it queues behind a
   * decision, and answered `queued` at once. Other agents' messages wait in memory (their callers
   * wait for the turn). @default undefined (not stored)
   */
  durable?: true;
  /** Set on a queued message handed back once the decision was made (it does not queue behind the others again). */
  drained?: QueuedMessage;
  /**
   * The `steer` record this message was stored as (`ifBusy: "steer"`): once the request holds the
   * session, the outcome of the turn that read the message, else the message runs (under `runId`).
   */
  steerOf?: string;
}

/** A message waiting behind a session's pending decision. */
export interface QueuedMessage {
  request: TurnRequest;
  resolve: (result: TurnResult | Promise<TurnResult>) => void;
  reject: (error: unknown) => void;
  /** Handed back to run (its turn is in the session's inbox); it keeps its place until it starts. */
  released: boolean;
}

/** What starts turns: the turn queue, handed down per call to what runs inside a turn (tools, notices). */
export interface TurnStarter {
  /** Queues a turn on its session; resolves with its result once it has run. */
  enqueue(request: TurnRequest): Promise<TurnResult>;
}

/**
 * Whether the request moves the conversation itself (an edit, a regeneration): it can neither join
 * a running turn nor wait behind a decision.
 */
export function movesConversation(request: Pick<TurnRequest, "input" | "editOf" | "regenerate">): boolean {
  return request.input === undefined || request.editOf !== undefined || request.regenerate === true;
}

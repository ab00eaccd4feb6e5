import type { AnyZodSchema, JsonSchema, JsonValue } from "../../contracts/json-schema.js";
import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { Message } from "../../contracts/message.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { ResumeState } from "../../contracts/loop-result.js";
import type { NewRecord, SessionSummary } from "../../contracts/session-store.js";
import type { ChatContext } from "../../contracts/tool-policy.js";
import type { RuntimeEvent } from "../../contracts/agent-runtime.js";
import type { TurnBudget } from "../../loop/budget.js";
import type { PreparedAgent } from "../agents/prepare-agent.js";
import type { Lineage } from "../records/lineage.js";
import type { SessionState, TurnWaiter } from "../records/session-state.js";
import type { TurnStarter } from "../records/turn-request.js";

/** Everything one turn needs. */
export interface TurnSetup {
  agent: AgentDefinition;
  session: SessionSummary;
  created: boolean;
  prepared: PreparedAgent;
  /** The root history before this turn's input; the turn takes it over (the input is appended to it). */
  history: Message[];
  /** `estimateMessageTokens` summed over `history` (the session state keeps it). */
  historyTokens: number;
  /** The new message this turn answers; absent when continuing a suspended turn. */
  input: Message | undefined;
  /** The host's id for `input` (`SendInput.messageId`), stored with it. @default none (its record's id) */
  inputMessageId?: string;
  resume?: ResumeState;
  resumeOf?: string;
  signal?: AbortSignal;
  /** Agents waiting on this turn through `agents_message` (handed to tools in `ctx.host`). */
  chain: readonly string[];
  /** Pre-assigned run id. @default a new UUID */
  runId?: string;
  /** Stored on the turn start so a resumed turn runs in the same context. */
  chatContext: ChatContext;
  /** Root structured output; its JSON Schema form goes on the turn start. */
  outputSchema?: AnyZodSchema | JsonSchema;
  /** Extra records to store first, in the same append as the turn start (e.g. crash repairs). */
  preface?: NewRecord[];
  /** Events produced before the loop starts (e.g. superseded approvals). */
  prefaceEvents?: LoopEvent[];
  /**
   * A new turn: before it starts, its context is compacted when it reaches `triggerTokens`, then
   * reset when it still reaches the emergency limit. `turnStarts`: where the history's turns start.
   * @default undefined (the context is used as it is: a resumed turn)
   */
  fitContext?: { turnStarts: SessionState["turnStarts"]; queued: SessionState["queued"] };
  onEvent: (event: RuntimeEvent) => void;
  /** The session lease's fencing token: every append of the turn carries it. */
  leaseToken?: number;
  /** Aborted when the session lease is lost: the turn stops. */
  leaseLost?: AbortSignal;
  /** Limits shared with the root turn (and hops from it). */
  lineage: Lineage;
  /** The session's role for this turn (null: none). */
  role?: string | null;
  /** Why the turn was stopped, when its signal says so (stored on its end record). */
  stopReason?: () => string | undefined;
  /**
   * Stops the turn with a reason (as `running.stop` does): given, the turn watches its session's
   * log for stop requests and steered messages (see `TurnControl`). @default undefined (not watched)
   */
  stop?: (reason: string) => void;
  /** Hands each event the turn publishes to those following it (a steering `stream`). @default none */
  tell?: (event: RuntimeEvent) => void;
  /** The `steer` record whose message is this turn's input (it ran as its own turn). @default undefined */
  steerOf?: string;
  /** Called after the turn ended when a steered message may have come that it did not read. @default none */
  unreadSteers?: () => void;
  /** The host's context of the turn (stored on its start; tools see it as `ctx.context`). */
  context?: JsonValue;
  /** The sync `agents_message` call waiting on this turn (a new chain's start stores it). */
  waiter?: TurnWaiter;
  /**
   * The budget of the turn waiting on this one (a sync `agents_message`): this turn's budget checks and
   * counts in it too, so the waiting turn's limits cover it.
   */
  parentBudget?: TurnBudget;
  /**
   * The run id of the chain's first turn, when this one resumes it (tools' `ctx.callKey` stay the same across a
   * resume).
   */
  chainRunId?: string;
  /** The turn's number in the session (stored on its start; its events' `turn` label). @default 1 */
  turn?: number;
  /**
   * What starts further turns, handed down by the queue that runs this one: the runtime's own tools
   * (`agents_message`, background agents) start turns through it (`ctx[RUNTIME_HOST].turns`).
   */
  turns: TurnStarter;
}

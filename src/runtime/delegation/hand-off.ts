import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { UserMessage } from "../../contracts/message.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { DispatchedTurn, TurnResult } from "../../contracts/agent-runtime.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { Lineage } from "../records/lineage.js";
import type { TurnWaiter } from "../records/session-state.js";
import type { TurnStarter } from "../records/turn-request.js";
import type { TurnDispatch } from "./turn-dispatch.js";
import type { TurnBudget } from "../../loop/budget.js";

/** A turn the runtime starts on its own (not for a caller of `send`), and where it comes from. */
export interface HandOffRequest {
  agent: AgentDefinition;
  session: SessionSummary;
  /** Whether the session was just made for this turn (its `TurnResult.created`, when run here). @default false */
  created?: boolean;
  input: UserMessage;
  chain: readonly string[];
  /** The new turn's lineage (its hops; the counters it shares with the turn that starts it). */
  lineage: Lineage;
  /**
   * What makes this hand-off unique and repeatable: the starting turn's session, run and tool
   * call and the kind of hand-off (`agents_message`, ...); or, for a notice, the session it is
   * about. Hashed into the dispatched turn's run id.
   */
  key: readonly string[];
  /** Charges model calls to the starting turn's own budget (the share a dispatched turn takes with it). */
  charge?: (llmCalls: number) => void;
  /** Run it here even when there is a dispatcher (a turn the caller waits for). */
  local?: boolean;
  /** The starting turn's host context, inherited by this one. */
  context?: JsonValue;
  /** A sync `agents_message` call waiting on this turn (answered when the turn suspends and ends later). */
  waiter?: TurnWaiter;
  /** The budget of the turn waiting on this one (a sync `agents_message`, run here): it covers this turn. */
  parentBudget?: TurnBudget;
}

/**
 * How the turn was started: here (its promise), or handed to the dispatcher (stored; it runs later, maybe elsewhere).
 */
export type HandOff =
  { dispatched: false; runId: string; turn: Promise<TurnResult> } | { dispatched: true; runId: string };

/**
 * Starts a turn the runtime sets off on its own. Without a turn dispatcher it is queued here.
 * With one, it is handed over and this resolves once the dispatcher stored it: the turn takes
 * half of what is left of the lineage's model calls and background agents (rounded up; the
 * starting turn is charged for it, so together they can never spend more than the root turn
 * could), and its run id is a digest of `request.key`, so handing the same call over twice runs
 * one turn. `turns` queues it here (handed down by the turn that starts it).
 */
export async function handOffTurn(
  dispatcher: TurnDispatch,
  turns: TurnStarter,
  request: HandOffRequest,
): Promise<HandOff> {
  const { agent, session, input, chain, lineage } = request;
  const dispatch = dispatcher.current;
  if (dispatch === undefined || request.local) {
    const runId = globalThis.crypto.randomUUID();
    const created = request.created ?? false;
    const turn = turns.enqueue({
      agent,
      session,
      created,
      input,
      chatContext: { kind: "thread" },
      chain,
      lineage,
      runId,
      ...(request.context !== undefined && { context: request.context }),
      ...(request.waiter !== undefined && { waiter: request.waiter }),
      ...(request.parentBudget !== undefined && { parentBudget: request.parentBudget }),
    });
    return { dispatched: false, runId, turn };
  }
  const { counters } = lineage;
  const runId = await handOffRunId(request.key);
  const llmCalls = Math.ceil(Math.max(0, counters.maxLlmCalls - counters.llmCalls) / 2);
  const backgroundAgents = Math.ceil(Math.max(0, counters.maxBackgroundAgents - counters.backgroundAgents) / 2);
  const turn: DispatchedTurn = {
    runId,
    sessionId: session.sessionId,
    agentId: agent.agentId,
    message: input,
    chain: [...chain],
    hops: lineage.hops,
    maxLlmCalls: llmCalls,
    maxBackgroundAgents: backgroundAgents,
    ...(request.context !== undefined && { context: request.context }),
  };
  // Charged before the wait, so hand-offs made at the same time share what is left; a hand-off
  // that failed gives its share back.
  const charge = (sign: 1 | -1) => {
    counters.llmCalls += sign * llmCalls;
    counters.backgroundAgents += sign * backgroundAgents;
    request.charge?.(sign * llmCalls);
  };
  charge(1);
  try {
    await dispatch(turn);
  } catch (error) {
    charge(-1);
    throw error;
  }
  return { dispatched: true, runId: turn.runId };
}

/**
 * `a2a-` and the first 40 hex digits of the SHA-256 of the key's parts (each part may be model-written: hashed, never
 * used raw).
 */
async function handOffRunId(key: readonly string[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(key));
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of hash.subarray(0, 20)) hex += byte.toString(16).padStart(2, "0");
  return `a2a-${hex}`;
}

/** The lineage of a dispatched turn in the process that runs it: its own counters, holding the share it brought. */
export function dispatchedLineage(turn: DispatchedTurn): Lineage {
  return {
    counters: {
      llmCalls: 0,
      maxLlmCalls: turn.maxLlmCalls,
      backgroundAgents: 0,
      maxBackgroundAgents: turn.maxBackgroundAgents,
    },
    hops: turn.hops,
    dispatched: true,
  };
}

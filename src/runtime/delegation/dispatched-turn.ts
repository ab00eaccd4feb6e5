import { InvalidArgumentError, SessionNotFoundError } from "../../errors/errors.js";
import type { DispatchedTurn, TurnResult } from "../../contracts/agent-runtime.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import { checkedContext } from "../../internal/host-context.js";
import type { TurnStarter } from "../records/turn-request.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { RuntimeStatus } from "../session/runtime-status.js";
import type { EventPublisher } from "../events/event-publisher.js";
import { agentOf } from "../agents/agent-lookups.js";
import { dispatchedLineage } from "./hand-off.js";

/** What running a dispatched turn needs. */
export interface DispatchedTurnDeps {
  status: RuntimeStatus;
  registry: AgentRegistry;
  store: GuardedSessionStore;
  events: Pick<EventPublisher, "report">;
  /** Where the turn is queued (the turn queue). */
  turns: TurnStarter;
}

/**
 * `runtime.runDispatchedTurn`: checks the hand-off, then queues its turn on its session under its run id (so it runs
 * once).
 */
export async function runDispatchedTurn(deps: Readonly<DispatchedTurnDeps>, turn: DispatchedTurn): Promise<TurnResult> {
  deps.status.checkOpen();
  checkDispatchedTurn(turn);
  const agent = agentOf(deps.registry, turn.agentId);
  const session = await deps.store.getSession(turn.sessionId);
  if (!session || session.agentId !== turn.agentId)
    throw new SessionNotFoundError(`Unknown session "${turn.sessionId}" of agent "${turn.agentId}"`, {
      sessionId: turn.sessionId,
    });
  try {
    return await deps.turns.enqueue({
      agent,
      session,
      created: false,
      input: turn.message,
      chatContext: { kind: "thread" },
      chain: turn.chain,
      runId: turn.runId,
      lineage: dispatchedLineage(turn),
      ...(turn.context !== undefined && { context: checkedContext("runDispatchedTurn", turn.context) }),
    });
  } catch (error) {
    // Nobody waits for it but the dispatcher: the host hears of it as of any such turn.
    deps.events.report("agent_message_failed", error, session);
    throw error;
  }
}

/**
 * Throws `InvalidArgumentError` naming what is wrong with a hand-off (it may come from a queue any process writes to).
 */
function checkDispatchedTurn(turn: DispatchedTurn): void {
  const problems: string[] = [];
  const value = turn as Partial<Record<keyof DispatchedTurn, unknown>> | null | undefined;
  if (typeof value?.runId !== "string" || !/^[A-Za-z0-9_.:-]{1,128}$/.test(value.runId))
    problems.push("runId must be 1 to 128 letters, digits or -_.:");
  if (typeof value?.sessionId !== "string" || value.sessionId === "")
    problems.push("sessionId must be a non-empty string");
  if (typeof value?.agentId !== "string" || value.agentId === "") problems.push("agentId must be a non-empty string");
  const message = value?.message as { role?: unknown; content?: unknown } | undefined;
  if (message?.role !== "user" || (typeof message.content !== "string" && !Array.isArray(message.content)))
    problems.push("message must be a user message");
  if (!Array.isArray(value?.chain) || !value.chain.every((id) => typeof id === "string"))
    problems.push("chain must be an array of agent ids");
  for (const key of ["hops", "maxLlmCalls", "maxBackgroundAgents"] as const) {
    const count = value?.[key];
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0)
      problems.push(`${key} must be a whole number, 0 or more`);
  }
  if (problems.length > 0) throw new InvalidArgumentError(`runDispatchedTurn: ${problems.join("; ")}`);
}

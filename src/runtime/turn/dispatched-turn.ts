import { InvalidArgumentError, SessionNotFoundError } from "../../errors/errors.js";
import type { DispatchedTurn, TurnResult } from "../../contracts/agent-runtime.js";
import { dispatchedLineage } from "../delegation/hand-off.js";
import type { RuntimeContext } from "../common/runtime-context.js";
import { agentOf, checkOpen } from "../common/runtime-lookups.js";
import { checkedContext } from "../../internal/host-context.js";

/**
 * `runtime.runDispatchedTurn`: checks the hand-off, then queues its turn on its session under its run id (so it runs
 * once).
 */
export async function runDispatchedTurn(runtime: RuntimeContext, turn: DispatchedTurn): Promise<TurnResult> {
  checkOpen(runtime);
  checkDispatchedTurn(turn);
  const agent = agentOf(runtime, turn.agentId);
  const session = await runtime.store.getSession(turn.sessionId);
  if (!session || session.agentId !== turn.agentId)
    throw new SessionNotFoundError(`Unknown session "${turn.sessionId}" of agent "${turn.agentId}"`, {
      sessionId: turn.sessionId,
    });
  try {
    return await runtime.runTurn({
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
    runtime.report("agent_message_failed", error, session);
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

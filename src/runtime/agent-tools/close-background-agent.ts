import type { AgentToolDeps } from "./agent-tool-deps.js";
import type { AgentToolCall } from "./agent-tool-inputs.js";
import { moveSubagent, subagentStatusOf } from "../background/subagent-lifecycle.js";
import { callerOf, sessionInScope } from "./agent-tool-caller.js";

/** Longest result text `close_background_agent` returns before it is cut. */
const MAX_MERGE_RESULT_CHARS = 20_000;

/**
 * `close_background_agent`: merges and closes a background agent of the caller whose work is done, returning its final
 * answer.
 */
export function closeBackgroundAgent(deps: Readonly<AgentToolDeps>): AgentToolCall<"close_background_agent"> {
  return async (args, ctx) => {
    const caller = await callerOf(deps, ctx);
    const session = await sessionInScope(deps, caller, args.sessionId);
    if (
      !session ||
      session.attributes?.parentSessionId !== caller.session.sessionId ||
      subagentStatusOf(session) === undefined
    ) {
      throw new Error(`"${args.sessionId}" is not a background agent you started.`);
    }
    const status = subagentStatusOf(session);
    if (status !== "waiting_for_merge")
      throw new Error(`Background agent ${args.sessionId} is ${status}; only one waiting_for_merge can be closed.`);
    const records = await deps.store.load(session.sessionId, { frame: null });
    let result = "";
    for (const record of records) {
      if (record.kind === "message" && record.message.role === "assistant") {
        const text = record.message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
        if (text !== "") result = text;
      }
    }
    const outcome = session.attributes?.lastTurnStatus === "complete" ? "completed" : "failed";
    const merged = await moveSubagent(deps.store, (s, e) => deps.events.publish(s, e), session.sessionId, outcome);
    if (!merged) throw new Error(`Background agent ${args.sessionId} changed meanwhile; list it again.`);
    await moveSubagent(deps.store, (s, e) => deps.events.publish(s, e), session.sessionId, "closed");
    const truncated = result.length > MAX_MERGE_RESULT_CHARS;
    return {
      sessionId: session.sessionId,
      agentId: session.agentId,
      status: outcome,
      result: truncated ? result.slice(0, MAX_MERGE_RESULT_CHARS) : result,
      truncated,
    };
  };
}

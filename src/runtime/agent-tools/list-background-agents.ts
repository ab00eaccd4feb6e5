import type { AgentToolDeps } from "./agent-tool-deps.js";
import type { AgentToolCall } from "./agent-tool-inputs.js";
import { subagentStatusOf } from "../background/subagent-lifecycle.js";
import { callerOf } from "./agent-tool-caller.js";

/** `list_background_agents`: the caller's background agents that are not closed, with their lifecycle. */
export function listBackgroundAgents(deps: Readonly<AgentToolDeps>): AgentToolCall<"list_background_agents"> {
  return async (_args, ctx) => {
    const caller = await callerOf(deps, ctx);
    const sessions = await deps.store.listSessions({ scope: caller.session.scope ?? null });
    return sessions.flatMap((s) => {
      const status = subagentStatusOf(s);
      if (s.attributes?.parentSessionId !== caller.session.sessionId || status === undefined || status === "closed")
        return [];
      return [{ sessionId: s.sessionId, agentId: s.agentId, name: s.name ?? "", status }];
    });
  };
}

import { z } from "zod";
import { defineTool } from "../../tools/define-tool.js";
import type { Tool } from "../../contracts/tool.js";
import type { RuntimeContext } from "../common/runtime-context.js";
import { subagentStatusOf } from "../delegation/subagent-lifecycle.js";
import { callerOf } from "./agent-tool-caller.js";

/** `list_background_agents`: the caller's background agents that are not closed, with their lifecycle. */
export function listBackgroundAgents(runtime: RuntimeContext): Tool {
  return defineTool({
    name: "list_background_agents",
    description:
      "List the background agents you started that are not closed yet, with where each is (running, waiting_for_merge: its result is ready for close_background_agent).",
    permissionClass: "subagent",
    input: z.object({}),
    async execute(_args, ctx) {
      const caller = await callerOf(runtime, ctx);
      const sessions = await runtime.store.listSessions({ scope: caller.session.scope ?? null });
      return sessions.flatMap((s) => {
        const status = subagentStatusOf(s);
        if (s.attributes?.parentSessionId !== caller.session.sessionId || status === undefined || status === "closed")
          return [];
        return [{ sessionId: s.sessionId, agentId: s.agentId, name: s.name ?? "", status }];
      });
    },
  });
}

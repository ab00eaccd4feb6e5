import { z } from "zod";
import { systemMessage } from "../../messages/system-message.js";
import { defineTool } from "../../tools/define-tool.js";
import type { Tool } from "../../contracts/tool.js";
import type { BackgroundAttributes } from "../shared/runtime-core.js";
import type { RuntimeContext } from "../shared/runtime-context.js";
import { handOffTurn } from "../delegation/hand-off.js";
import { callerOf, nextHop, reachable, handOffFrom, scopeOf } from "./agent-tool-caller.js";

/** `start_background_agent`: starts an agent in a background session of its own and returns its session id at once. */
export function startBackgroundAgent(runtime: RuntimeContext): Tool {
  return defineTool({
    name: "start_background_agent",
    description:
      "Start a new background agent with a first message and return its session id at once. It works on its own and reports back with send_agent_message.",
    permissionClass: "subagent",
    input: z.object({
      prompt: z.string().describe("The task. Ask it to report progress and results with send_agent_message."),
      agentId: z.string().optional().describe("Which agent to start (default: your own kind)."),
      name: z.string().optional().describe("A name for the background session."),
    }),
    async execute(args, ctx) {
      const caller = await callerOf(runtime, ctx);
      const target = args.agentId === undefined || args.agentId === caller.agent.agentId ? caller.agent : reachable(runtime, caller, args.agentId);
      const lineage = nextHop(runtime, caller);
      if (lineage.counters.backgroundAgents >= lineage.counters.maxBackgroundAgents) {
        throw new Error(
          `Refused: one user message may start at most ${runtime.maxBackgroundAgents} background agents (counting those they start); none is left for this one.`,
        );
      }
      lineage.counters.backgroundAgents++;
      const attributes: BackgroundAttributes = {
        background: true,
        parentSessionId: caller.session.sessionId,
        parentAgentId: caller.agent.agentId,
        lifecycle: "created",
      };
      const session = await runtime.store.createSession({
        agentId: target.agentId,
        attributes: { ...attributes },
        ...scopeOf(caller.session),
        ...(args.name !== undefined && { name: args.name }),
      });
      runtime.publish(session, {
        type: "subagent_status",
        sessionId: session.sessionId,
        parentSessionId: caller.session.sessionId,
        from: null,
        to: "created",
        depth: 0,
        parentId: null,
      });
      const text = `${args.prompt}\n\nYou run in the background. Report progress and your final result to the agent that started you with send_agent_message.`;
      const handed = await handOffTurn(runtime, {
        agent: target,
        session,
        created: true,
        input: systemMessage(caller.agent.agentId, text),
        chain: [],
        lineage,
        ...handOffFrom(caller, ctx, "start_background_agent"),
      });
      if (!handed.dispatched) handed.turn.catch(() => undefined); // failures reach the parent as one notification
      return { status: "started", agentId: target.agentId, sessionId: session.sessionId };
    },
  });
}

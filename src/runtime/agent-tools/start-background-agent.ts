import { systemMessage } from "../../messages/system-message.js";
import type { ToolContext } from "../../contracts/tool.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import { LEVEL_TOOLS } from "../../internal/runtime-host.js";
import { toolSubsetOf, type BackgroundAttributes } from "../records/background-attributes.js";
import type { AgentToolDeps } from "./agent-tool-deps.js";
import type { AgentToolCall } from "./agent-tool-inputs.js";
import { handOffTurn } from "../delegation/hand-off.js";
import { callerOf, nextHop, reachable, handOffFrom, scopeOf } from "./agent-tool-caller.js";

/** Longest tool name a refusal shows (the input schema takes none longer: agent-tool-inputs.ts). */
const MAX_TOOL_NAME = 64;

/** The names of the tools the calling level offers (its toolbelt, narrowed in a sub-task). */
function levelToolNames(ctx: ToolContext): string[] {
  const tools = (ctx as ToolContext & { [LEVEL_TOOLS]?: ReadonlyMap<string, unknown> })[LEVEL_TOOLS];
  return tools === undefined ? [] : [...tools.keys()];
}

/**
 * The tools a new background agent may use: the `requested` names, each of which must be in the
 * caller's toolbelt (else an error the model can act on), plus `send_agent_message` when the
 * caller has it (how it reports). Without `requested`: undefined (its agent's own toolbelt),
 * unless the caller is itself narrowed (a sub-task, a background agent with a subset): then the
 * caller's tools, so no chain of starts widens what a turn can do.
 */
export function backgroundToolSubset(
  requested: readonly string[] | undefined,
  ctx: ToolContext,
  caller: SessionSummary,
): string[] | undefined {
  const own = levelToolNames(ctx);
  if (requested === undefined) return ctx.depth > 0 || toolSubsetOf(caller) !== undefined ? own : undefined;
  const outside = [...new Set(requested)].filter((name) => !own.includes(name));
  if (outside.length > 0) {
    const shown = outside.slice(0, 10).map((name) => JSON.stringify(name.slice(0, MAX_TOOL_NAME)));
    throw new Error(
      `Refused: a background agent can only get tools you have; ` +
        `not yours: ${shown.join(", ")}${outside.length > 10 ? ", ..." : ""}. ` +
        `Your tools: ${own.join(", ") || "none"}.`,
    );
  }
  const subset = [...new Set(requested)];
  if (own.includes("send_agent_message") && !subset.includes("send_agent_message")) subset.push("send_agent_message");
  return subset;
}

/** `start_background_agent`: starts an agent in a background session of its own and returns its session id at once. */
export function startBackgroundAgent(deps: Readonly<AgentToolDeps>): AgentToolCall<"start_background_agent"> {
  return async (args, ctx) => {
    const caller = await callerOf(deps, ctx);
    const target =
      args.agentId === undefined || args.agentId === caller.agent.agentId
        ? caller.agent
        : reachable(deps, caller, args.agentId);
    const subset = backgroundToolSubset(args.tools, ctx, caller.session);
    const lineage = nextHop(deps, caller);
    if (lineage.counters.backgroundAgents >= lineage.counters.maxBackgroundAgents) {
      throw new Error(
        `Refused: one user message may start at most ${deps.limits.maxBackgroundAgents} background agents (counting those they start); none is left for this one.`,
      );
    }
    lineage.counters.backgroundAgents++;
    const attributes: BackgroundAttributes = {
      background: true,
      parentSessionId: caller.session.sessionId,
      parentAgentId: caller.agent.agentId,
      lifecycle: "created",
      ...(subset !== undefined && { toolSubset: subset }),
      ...(args.timeoutMs !== undefined && { timeoutMs: args.timeoutMs, deadlineAt: Date.now() + args.timeoutMs }),
    };
    const session = await deps.store.createSession({
      agentId: target.agentId,
      attributes: { ...attributes },
      ...scopeOf(caller.session),
      ...(args.name !== undefined && { name: args.name }),
    });
    deps.events.publish(session, {
      type: "subagent_status",
      sessionId: session.sessionId,
      parentSessionId: caller.session.sessionId,
      from: null,
      to: "created",
      depth: 0,
      parentId: null,
    });
    const text = `${args.prompt}\n\nYou run in the background. Report progress and your final result to the agent that started you with send_agent_message.`;
    const handed = await handOffTurn(deps.dispatch, caller.turns, {
      agent: target,
      session,
      created: true,
      input: systemMessage(caller.agent.agentId, text),
      chain: [],
      lineage,
      ...handOffFrom(caller, ctx, "start_background_agent"),
    });
    if (!handed.dispatched) handed.turn.catch(() => undefined); // failures reach the parent as one notification
    return {
      status: "started",
      agentId: target.agentId,
      sessionId: session.sessionId,
      ...(subset !== undefined && { tools: subset }),
      ...(args.timeoutMs !== undefined && { timeoutMs: args.timeoutMs }),
    };
  };
}

import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { ChatContext } from "../../contracts/tool-policy.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { Tool } from "../../contracts/tool.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import { prepareAgent, type PreparedAgent } from "./prepare-agent.js";
import type { RoleLookup } from "../../modes/role-lookup.js";
import type { AgentRuntimeOptions } from "../records/runtime-options.js";
import { toolSubsetOf } from "../records/background-attributes.js";

/** Makes what a turn needs from its agent (provider, policy, toolbelt, prompt). */
export type PrepareAgent = (
  agent: AgentDefinition,
  session: SessionSummary,
  chatContext: ChatContext,
  role: string | null,
  context: JsonValue | undefined,
) => PreparedAgent;

/**
 * What a turn needs from its agent is the same for the same agent, chat context and role unless
 * the policy or a prompt section depends on the session, or the session is limited to some tools:
 * then it is made per turn; else it is kept (until host tools given as a function return a new array).
 */
export function createAgentPreparer(
  deps: Readonly<{
    options: AgentRuntimeOptions;
    roleOf: RoleLookup;
    /** Runtime-built tools offered besides the host's (the agent tools, the mode tools). */
    builtinTools: Tool[];
  }>,
): PrepareAgent {
  const { options, roleOf, builtinTools } = deps;
  const perSession =
    typeof options.policy === "function" ||
    (options.promptSections ?? []).some((section) => typeof section === "function");
  let prepared = new WeakMap<AgentDefinition, Map<string, PreparedAgent>>();
  let toolsSeen: unknown;
  return (agent, session, chatContext, role, hostContext) => {
    // A background agent limited to some tools gets its own toolbelt (and prompt listing it).
    const toolSubset = toolSubsetOf(session);
    if (perSession || toolSubset !== undefined) {
      return prepareAgent({
        options,
        roleOf,
        agent,
        session,
        chatContext,
        builtinTools,
        role,
        context: hostContext,
        ...(toolSubset && { toolSubset }),
      });
    }
    // Tools given as a function (MCP servers' lists change): a new array drops the prepared toolbelts.
    const tools = typeof options.tools === "function" ? options.tools() : options.tools;
    if (tools !== toolsSeen) {
      toolsSeen = tools;
      prepared = new WeakMap();
    }
    const key = JSON.stringify([chatContext, role]);
    let byContext = prepared.get(agent);
    if (!byContext) prepared.set(agent, (byContext = new Map()));
    let entry = byContext.get(key);
    if (!entry)
      byContext.set(key, (entry = prepareAgent({ options, roleOf, agent, session, chatContext, builtinTools, role })));
    return entry;
  };
}

import type { Tool, ToolContext } from "../../contracts/tool.js";
import type { AnyZodSchema } from "../../contracts/json-schema.js";
import { defineTool } from "../../tools/define-tool.js";
import type { RuntimeContext } from "../common/runtime-context.js";
import { loadOnDemand } from "../common/load-on-demand.js";
import { loadOnce } from "../../internal/load-once.js";
import { agentToolInputs, type AgentToolArgs, type AgentToolName } from "./agent-tool-inputs.js";
import { requestPermission } from "./request-permission.js";

/**
 * The runtime's built-in agent tools (`agents_message`, `start_background_agent`,
 * `send_agent_message`, `request_permission`, `list_background_agents`, `close_background_agent`),
 * made once per runtime: each call finds its caller (agent, session, delegation chain) in
 * `ctx[RUNTIME_HOST]`, one file per tool. They have permission class `subagent` and are scoped
 * like any tool. What they do (delegation, background agents) loads on the first call of one: a
 * runtime whose agents never delegate never loads it. A load that failed is tried again on the
 * next call (the failed call is a tool error the model sees). `load` loads the runtime's on-demand module.
 * @default load loadOnDemand
 */
export function createAgentTools(runtime: RuntimeContext, load = loadOnDemand): Tool[] {
  const calls = loadOnce(async () => (await load()).agentToolCalls(runtime));
  const inputs = agentToolInputs();
  const tool = <K extends AgentToolName>(name: K): Tool => {
    // `args` passed the validation against the tool's input schema, which `AgentToolArgs<K>` is typed from.
    const call = async (args: unknown, ctx: ToolContext) => (await calls())[name](args as AgentToolArgs<K>, ctx);
    return defineTool<AnyZodSchema, unknown>({ ...inputs[name], execute: call });
  };
  return [
    tool("agents_message"),
    tool("start_background_agent"),
    tool("send_agent_message"),
    requestPermission(),
    tool("list_background_agents"),
    tool("close_background_agent"),
  ];
}

import type { Tool, ToolContext } from "../../contracts/tool.js";
import type { AnyZodSchema } from "../../contracts/json-schema.js";
import { defineTool } from "../../tools/define-tool.js";
import type { AgentToolDeps } from "./agent-tool-deps.js";
import { agentToolInputs, type AgentToolArgs, type AgentToolCalls, type AgentToolName } from "./agent-tool-inputs.js";
import { agentsMessage } from "./agents-message.js";
import { closeBackgroundAgent } from "./close-background-agent.js";
import { listBackgroundAgents } from "./list-background-agents.js";
import { sendAgentMessage } from "./send-agent-message.js";
import { startBackgroundAgent } from "./start-background-agent.js";
import { requestPermission } from "./request-permission.js";

/**
 * The runtime's built-in agent tools (`agents_message`, `start_background_agent`,
 * `send_agent_message`, `request_permission`, `list_background_agents`, `close_background_agent`),
 * made once per runtime: each call finds its caller (agent, session, delegation chain) in
 * `ctx[RUNTIME_HOST]`, one file per tool. They have permission class `subagent` and are scoped
 * like any tool.
 */
export function createAgentTools(deps: Readonly<AgentToolDeps>): Tool[] {
  const calls: AgentToolCalls = {
    agents_message: agentsMessage(deps),
    start_background_agent: startBackgroundAgent(deps),
    send_agent_message: sendAgentMessage(deps),
    list_background_agents: listBackgroundAgents(deps),
    close_background_agent: closeBackgroundAgent(deps),
  };
  const inputs = agentToolInputs();
  const tool = <K extends AgentToolName>(name: K): Tool => {
    // `args` passed the validation against the tool's input schema, which `AgentToolArgs<K>` is typed from.
    const call = (args: unknown, ctx: ToolContext) => calls[name](args as AgentToolArgs<K>, ctx);
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

import type { Tool } from "../../contracts/tool.js";
import type { RuntimeContext } from "../common/runtime-context.js";
import { agentsMessage } from "./agents-message.js";
import { startBackgroundAgent } from "./start-background-agent.js";
import { sendAgentMessage } from "./send-agent-message.js";
import { requestPermission } from "./request-permission.js";
import { listBackgroundAgents } from "./list-background-agents.js";
import { closeBackgroundAgent } from "./close-background-agent.js";

/**
 * The runtime's built-in agent tools (`agents_message`, `start_background_agent`,
 * `send_agent_message`, `request_permission`), made once per runtime: each call finds its caller
 * (agent, session, delegation chain) in `ctx[RUNTIME_HOST]`, one file per tool. They have permission class `subagent`
 * and are
 * scoped like any tool.
 */
export function createAgentTools(runtime: RuntimeContext): Tool[] {
  return [
    agentsMessage(runtime),
    startBackgroundAgent(runtime),
    sendAgentMessage(runtime),
    requestPermission(),
    listBackgroundAgents(runtime),
    closeBackgroundAgent(runtime),
  ];
}

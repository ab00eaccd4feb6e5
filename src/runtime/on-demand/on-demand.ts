import type { RuntimeContext } from "../common/runtime-context.js";
import type { AgentToolCalls } from "../agent-tools/agent-tool-inputs.js";
import { agentsMessage } from "../agent-tools/agents-message.js";
import { closeBackgroundAgent } from "../agent-tools/close-background-agent.js";
import { listBackgroundAgents } from "../agent-tools/list-background-agents.js";
import { sendAgentMessage } from "../agent-tools/send-agent-message.js";
import { startBackgroundAgent } from "../agent-tools/start-background-agent.js";

// What the runtime loads on first use (../common/load-on-demand.ts), in one chunk: what only some
// apps use (tasks, delegation and background agents, deciding approvals and answering questions,
// the notes `request_permission` leaves, roles, the audit log, turns dispatched to another
// process, recovering a delegated wait after a crash). Everything here is reached from an async
// path, never from `import "@agentry/core"`.
export { createTaskApi, transitionTask } from "../tasks/task-api.js";
export { decide } from "../approvals/approvals.js";
export { notifyPermission } from "../approvals/permission-notices.js";
export { readAuditLog } from "../turn/read-audit-log.js";
export { runDispatchedTurn } from "../turn/dispatched-turn.js";
export { setRole } from "../roles/set-role.js";
export { recoverWaits } from "../delegation/delegated-waits.js";
export { moveSubagent, settleSubagentTurn } from "../delegation/subagent-lifecycle.js";
export { createBackgroundNotices } from "../delegation/background-notices.js";

/** What each agent tool does, made for `runtime` (the tools themselves: agent-tools/agent-tools.ts). */
export function agentToolCalls(runtime: RuntimeContext): AgentToolCalls {
  return {
    agents_message: agentsMessage(runtime),
    start_background_agent: startBackgroundAgent(runtime),
    send_agent_message: sendAgentMessage(runtime),
    list_background_agents: listBackgroundAgents(runtime),
    close_background_agent: closeBackgroundAgent(runtime),
  };
}

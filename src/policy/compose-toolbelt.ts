import type { AgentDefinition } from "../contracts/agent-definition.js";
import type { Tool } from "../contracts/tool.js";
import { compileToolScope, scopeTools } from "./scope-tools.js";
import { withAgentScope } from "../internal/toolbelt-scope.js";
import { classRefusal } from "../tools/declared-read-only.js";
import type { ChatContext, ToolPolicy } from "../contracts/tool-policy.js";

/** Why {@link composeToolbelt} warned; stable, for hosts that log or forward warnings. */
export type ToolbeltWarningCode =
  /** Two registered tools share a name; the first is kept. */
  | "duplicate_tool"
  /** A tool the chat context unlocks was dropped by the policy classes or the agent's scope. */
  | "context_tool_dropped"
  /** The chat context is not "thread" but no registered tool is gated to its kind. */
  | "context_without_tools"
  /** Tools of an MCP server were left out: the server is not in `policy.allowedMcpServers` (once per server). */
  | "mcp_server_not_allowed";

/** What {@link composeToolbelt} takes. */
export interface ComposeToolbeltOptions {
  /** Every tool the host registered, in order. */
  tools: Tool[];
  /** The session's policy: only tools whose `permissionClass` is in `policy.classes` are kept. */
  policy: ToolPolicy;
  /** When given, its glob scoping applies ({@link scopeTools}). @default no agent scoping */
  agent?: AgentDefinition;
  /** Tools with `contexts` are offered only when this kind is listed. @default { kind: "thread" } */
  chatContext?: ChatContext;
  /**
   * Told about likely misconfigurations; composing never throws for them. Must not throw.
   * @default warnings are dropped
   */
  onWarning?: (message: string, code: ToolbeltWarningCode) => void;
}

/**
 * The toolbelt of a run: (registered tools) ∩ (agent's glob scope) ∩ (policy classes) ∩ (chat
 * context), in registration order. Under a read-only policy
 * (`declaredReadOnly`, the planner) only tools declared read-only are kept.
 * A tool with `mcpServer` is kept only when `policy.allowedMcpServers` lists that server (none is implied).
 *
 * A tool with `contexts` is offered only when the chat context kind (default `"thread"`) is one
 * of them; a tool without `contexts` is offered in every context. Duplicate names keep the first
 * tool. Warnings (via `onWarning`): duplicate names; a tool gated to the current context that
 * the policy or the agent's scope drops (naming which); a non-`"thread"` context for which no
 * tool is registered at all (e.g. an editor chat with no editor tools wired).
 *
 * The agent's tool lists also cover the tools the loop adds itself: the returned array carries
 * them, and `runUnifiedAgentLoop` given this very array offers `run_subtask` only when the lists
 * keep that name (`toolDenylist: ["run_subtask"]` and `toolAllowlist: []` take it away), and takes
 * an `output_schema` (ended through `finish_subtask`) only when they keep `finish_subtask` too;
 * a call to a tool taken away is refused as an unknown tool. A copy of the array (`[...belt,
 * extra]`, `belt.filter(...)`) does not carry the agent's lists: compose the final toolbelt here.
 *
 * @example
 * const tools = composeToolbelt({ tools: registered, policy: defaultPolicy("editor"),
 *   chatContext: { kind: "editor", workflowId }, onWarning: (m) => logger.warn(m) });
 */
export function composeToolbelt(options: ComposeToolbeltOptions): Tool[] {
  const { policy, agent, onWarning } = options;
  const kind = options.chatContext?.kind ?? "thread";
  const warn = (message: string, code: ToolbeltWarningCode) => onWarning?.(message, code);

  const seen = new Set<string>();
  const registered = options.tools.filter((tool) => {
    if (!seen.has(tool.name)) {
      seen.add(tool.name);
      return true;
    }
    warn(
      `Duplicate tool name "${tool.name}": keeping the first registered tool, ignoring the later one.`,
      "duplicate_tool",
    );
    return false;
  });

  const inScope = new Set(agent ? scopeTools(agent, registered) : registered);
  const allowedServers = new Set(policy.allowedMcpServers);
  const refusedServers = new Set<string>();
  let gatedToKind = false;

  const toolbelt = registered.filter((tool) => {
    const unlockedHere = tool.contexts?.includes(kind) ?? false;
    gatedToKind ||= unlockedHere;
    if (tool.contexts && !unlockedHere) return false;
    if (tool.mcpServer !== undefined && !allowedServers.has(tool.mcpServer)) {
      if (!refusedServers.has(tool.mcpServer)) {
        refusedServers.add(tool.mcpServer);
        warn(
          `Tools of MCP server "${tool.mcpServer}" are left out: the policy's allowedMcpServers does not list it.`,
          "mcp_server_not_allowed",
        );
      }
      return false;
    }
    const reasons: string[] = [];
    const refused = classRefusal(tool, policy);
    if (refused) reasons.push(refused);
    if (!inScope.has(tool)) reasons.push(`agent "${agent?.agentId ?? ""}" is not scoped to it`);
    if (reasons.length === 0) return true;
    if (unlockedHere) {
      warn(
        `Tool "${tool.name}" is unlocked by chat context "${kind}" but left out: ${reasons.join("; ")}.`,
        "context_tool_dropped",
      );
    }
    return false;
  });

  if (kind !== "thread" && !gatedToKind) {
    warn(
      `Chat context "${kind}" unlocks no tool: no registered tool lists "${kind}" in its contexts ` +
        `(are the ${kind} tools registered?). Only context-independent tools are offered.`,
      "context_without_tools",
    );
  }
  if (!agent) return toolbelt;
  const keeps = compileToolScope(agent);
  return keeps ? withAgentScope(toolbelt, (name) => keeps(name)) : toolbelt;
}

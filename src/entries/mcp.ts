/**
 * `@agentry/core/mcp`: MCP servers' tools as Agentry tools, and Agentry agents served over MCP.
 * Needs `@modelcontextprotocol/sdk` 1.x installed (an optional peer dependency: only this entry
 * loads it). Node only (stdio servers are child processes).
 *
 * @example
 * import { connectMcpServer, toolsWithMcp } from "@agentry/core/mcp";
 * const fs = await connectMcpServer({ name: "fs", command: "npx", args: ["-y",
 * "@modelcontextprotocol/server-filesystem", dir] });
 * const runtime = createAgentRuntime({ registry, store, providers, tools: toolsWithMcp({ connections: [fs] }),
 *   policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "network"], allowedMcpServers: ["fs"] } });
 *
 * @module \@agentry/core/mcp
 */

export { connectMcpServer } from "../mcp/connect-mcp-server.js";
export type {
  ConnectMcpServerOptions,
  McpConnection,
  McpConnectionStatus,
  McpWarningCode,
} from "../mcp/mcp-connection.js";
export { mcpToolRequiresApproval, toAgentryTool } from "../mcp/mcp-tool.js";
export type {
  McpApproval,
  McpCallOptions,
  McpToolAnnotations,
  McpToolDefinition,
  McpToolMapping,
} from "../mcp/mcp-tool.js";
export { MCP_PROGRESS_LIMITS } from "../mcp/progress-mailbox.js";
export type { McpProgress } from "../mcp/progress-mailbox.js";
export { mapMcpResult } from "../mcp/mcp-result.js";
export type { McpCallResult } from "../mcp/mcp-result.js";
export { toolsWithMcp } from "../mcp/tools-with-mcp.js";
export type { ToolsWithMcpOptions } from "../mcp/tools-with-mcp.js";
export { serveAgentsOverMcp } from "../mcp/serve-agents-over-mcp.js";
export type {
  McpAuthorization,
  McpListenOptions,
  McpServerHandle,
  ServeAgentsOverMcpOptions,
} from "../mcp/serve-agents-over-mcp.js";
export { McpConnectionError, McpRequestError } from "../errors/errors.js";
export { MCP_LIST_LIMITS } from "../mcp/mcp-resources.js";
export type {
  McpPrompt,
  McpPromptArgument,
  McpPromptMessage,
  McpPromptResult,
  McpResource,
  McpResourceContents,
} from "../mcp/mcp-resource-types.js";

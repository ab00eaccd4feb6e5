import type { Tool } from "../contracts/tool.js";
import type { McpConnection } from "./mcp-connection.js";

/** What {@link toolsWithMcp} takes. */
export interface ToolsWithMcpOptions {
  /** The host's own tools, offered first. @default [] */
  tools?: Tool[];
  /** MCP connections whose current tools follow, in this order. */
  connections: McpConnection[];
}

/**
 * The tools to give `createAgentRuntime({ tools })` when some come from MCP servers: a function
 * the runtime calls at the start of every turn, returning the host's tools followed by each
 * connection's current list. It returns the same array until a connection's list changes, so
 * the runtime keeps its prepared toolbelts until then.
 *
 * @example
 * const runtime = createAgentRuntime({ registry, store, providers, tools: toolsWithMcp({ tools: myTools, connections:
 * [fs] }) });
 */
export function toolsWithMcp(options: ToolsWithMcpOptions): () => Tool[] {
  const own = options.tools ?? [];
  let lists: Tool[][] = [];
  let combined: Tool[] = own;
  return () => {
    const current = options.connections.map((connection) => connection.tools());
    if (current.length !== lists.length || current.some((list, i) => list !== lists[i])) {
      lists = current;
      combined = [...own, ...current.flat()];
    }
    return combined;
  };
}

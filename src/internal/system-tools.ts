import type { Tool } from "../contracts/tool.js";

// The one registry of system tools: a module-private set of tool objects, so membership is a
// fact about an object this package made, never about a name. Not state that any call changes
// in a way a caller can see: tools are only ever added, by the package's own code, and a
// WeakSet holds nothing alive.
const systemTools = new WeakSet<object>();

/**
 * Marks `tool` as one of this package's system tools and returns it. A system tool is kept
 * whatever an agent's `toolAllowlist`, `toolDenylist` and capability lists say (the policy's
 * classes, MCP server list and chat contexts still apply), and is left out of the prompt's
 * "Available tools" list.
 *
 * Only code of this package may call it, and only on a tool object it created itself: never on a
 * host's tool, an MCP server's tool or anything named by the model. The exemption follows the
 * object, so a copy (`{ ...tool }`) or another tool with the same name is an ordinary tool.
 */
export function asSystemTool<T extends Tool>(tool: T): T {
  systemTools.add(tool);
  return tool;
}

/**
 * Whether `tool` is this very object marked by {@link asSystemTool}. A tool's name plays no part:
 * a tool named `system_*` from a host or an MCP server (e.g. a server named `system_fs`) is scoped
 * and listed like any other.
 */
export function isSystemTool(tool: object): boolean {
  return systemTools.has(tool);
}

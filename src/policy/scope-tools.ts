import type { AgentDefinition } from "../contracts/agent-definition.js";
import { compileGlobs, type GlobMatcher } from "../internal/glob.js";
import type { Tool } from "../contracts/tool.js";
import { isSystemTool } from "../internal/system-tools.js";

const compileList = (patterns: string[] | null | undefined): GlobMatcher | undefined =>
  patterns == null ? undefined : compileGlobs(patterns);

/**
 * The tools an agent may use, by its glob scoping.
 *
 * - A list that is `null` or absent is unset. With all four lists unset, every tool is kept.
 * - The package's own system tools are always kept. Which tools those are is decided by identity
 *   (objects the package created and marked), never by name: a host's or an MCP server's tool
 *   named `system_*` (a server named `system_fs` included) is scoped like any other tool.
 * - Otherwise a tool is kept when its name matches `toolAllowlist` (if set), matches no
 *   `toolDenylist` pattern (if set), and, when it declares capabilities, every capability
 *   matches some `capabilityAllowlist` pattern (if set) and none matches `capabilityDenylist`
 *   (if set). Tools without capabilities skip the capability checks.
 * - An empty list is set: an empty allowlist allows nothing.
 * - Globs are whole-value matches in one dialect (see `AgentDefinition`): `*` crosses `/`, `.`
 *   and `:`, so a deny pattern such as `secrets*` also takes away `secrets/mail.send` (fail closed).
 *
 * Order is kept; the input array is not modified.
 */
export function scopeTools(agent: AgentDefinition, tools: Tool[]): Tool[] {
  const keeps = compileToolScope(agent);
  if (!keeps) return tools.slice();
  return tools.filter((tool) => isSystemTool(tool) || keeps(tool.name, tool.capabilities));
}

/**
 * The test {@link scopeTools} applies to one tool that is not a system tool, for a name and the
 * capabilities it declares (none: the capability checks are skipped). `undefined` when the agent
 * sets no list (every tool is kept). Internal: the loop's own tools (`run_subtask`,
 * `finish_subtask`) are scoped with it by name.
 */
export function compileToolScope(
  agent: AgentDefinition,
): ((name: string, capabilities?: readonly string[]) => boolean) | undefined {
  const toolAllow = compileList(agent.toolAllowlist);
  const toolDeny = compileList(agent.toolDenylist);
  const capabilityAllow = compileList(agent.capabilityAllowlist);
  const capabilityDeny = compileList(agent.capabilityDenylist);
  if (!toolAllow && !toolDeny && !capabilityAllow && !capabilityDeny) return undefined;
  return (name, capabilities) => {
    if (toolAllow && !toolAllow(name)) return false;
    if (toolDeny?.(name)) return false;
    if (!capabilities || capabilities.length === 0) return true;
    if (capabilityAllow && !capabilities.every(capabilityAllow)) return false;
    if (capabilityDeny && capabilities.some(capabilityDeny)) return false;
    return true;
  };
}

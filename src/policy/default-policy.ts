import type { PermissionClass, ToolPolicy } from "../contracts/tool-policy.js";

/** Options of {@link defaultPolicy}. */
export interface DefaultPolicyOptions {
  /**
   * Root that `workspace_*` tools are confined below. Until the host sets one, those tools refuse
   * every path.
   * @default null
   */
  workspaceRoot?: string | null;
}

const THREAD_CLASSES: readonly PermissionClass[] = [
  "safe",
  "knowledge",
  "subagent",
  "network",
  "workspace_read",
  "workspace_write",
  "workspace_create",
];

/**
 * The default policy for a chat context kind.
 *
 * | class | `"thread"` | `"editor"` |
 * | --- | --- | --- |
 * | safe, knowledge, subagent | on | on |
 * | network | on | on |
 * | workspace_read, workspace_write, workspace_create | on, confined to `workspaceRoot` | on, confined |
 * | workspace_delete | off (opt-in) | off (opt-in) |
 * | editor_mutate | off | on |
 * | secrets, execute | off (opt-in) | off (opt-in) |
 *
 * Reading, changing and creating files are on (as `write_file` always could); deleting files is
 * not, so no default toolbelt can remove a file until the host adds `workspace_delete`.
 * Any other kind gets the `"thread"` classes. No MCP server is allowed and no approval is
 * forced. Every call returns a fresh object the caller may modify.
 *
 * @param kind - the chat context kind. @default "thread"
 * @example
 * const policy = { ...defaultPolicy("thread", { workspaceRoot: "/srv/ws" }),
 *   classes: [...defaultPolicy().classes, "execute"] };
 */
export function defaultPolicy(
  kind: "thread" | "editor" | (string & {}) = "thread",
  options: DefaultPolicyOptions = {},
): ToolPolicy {
  const classes = [...THREAD_CLASSES];
  if (kind === "editor") classes.push("editor_mutate");
  return { classes, workspaceRoot: options.workspaceRoot ?? null, allowedMcpServers: [] };
}

/**
 * Permission classes of tools; hosts may add their own. The workspace is split as the file
 * permissions of a role are: `workspace_read` (read, list, search, git status and diff),
 * `workspace_write` (change an existing file), `workspace_create` (make a new file) and
 * `workspace_delete` (remove a file). A tool that needs several lists them all (`Tool.permissionClass`).
 */
export type PermissionClass =
  | "safe"
  | "knowledge"
  | "network"
  | "workspace_read"
  | "workspace_write"
  | "workspace_create"
  | "workspace_delete"
  | "execute"
  | "editor_mutate"
  | "subagent"
  | "secrets"
  | (string & {});

/** The per-session tool policy: which classes are on, and where workspace tools may reach. */
export interface ToolPolicy {
  /** Enabled permission classes. */
  classes: PermissionClass[];
  /** `workspace_*` tools are confined below it; null = they refuse every path. */
  workspaceRoot: string | null;
  /** MCP servers whose tools may be offered; none implied. */
  allowedMcpServers: string[];
  /** Always ask the approval handler for these classes or tool names. */
  approval?: { classes?: PermissionClass[]; tools?: string[] };
  /**
   * Only tools their author declared read-only are offered and dispatched (see
   * `isDeclaredReadOnly`); set by `applyRole` for a read-only role such as the planner.
   * @default false
   */
  declaredReadOnly?: boolean;
  /**
   * Under `declaredReadOnly`: the classes in which a tool flagged `readOnly: true` may still run
   * (`applyRole` keeps the policy's classes from before the role narrowed them, so an MCP tool with
   * `readOnlyHint` and class `network` runs under the planner only where the host enables network).
   * @default `classes`
   */
  readOnlyToolClasses?: PermissionClass[];
}

/** Where a chat runs: `"thread"` (default), `"editor"`, or a host-defined kind. */
export type ChatContext = { kind: string; [key: string]: unknown };

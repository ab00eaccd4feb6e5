import type { PermissionClass, ToolPolicy } from "../contracts/tool-policy.js";
import { ACTOR_PROMPT, PLANNER_PROMPT } from "./role-prompts.js";

/** A role: a policy preset (the classes it allows) plus the prompt text that tells the model so. */
export interface RoleDefinition {
  /** Stable role name, e.g. `"planner"`; matches `/^[a-zA-Z0-9_.-]{1,64}$/`. */
  readonly name: string;
  /** One line for humans (UIs, logs). */
  readonly description: string;
  /** The permission classes the role allows: a session in the role keeps only the policy's classes among them. */
  readonly classes: readonly PermissionClass[];
  /** Text appended to the system prompt while the role is active. */
  readonly prompt: string;
  /**
   * Read-only role (the planner): a tool runs under it only when its author declared it
   * read-only: its `permissionClass` given explicitly with every class among `classes`, or `readOnly: true`
   * on the tool (MCP tools with `readOnlyHint`). A tool whose class was left to `defineTool`'s
   * default never runs here.
   * @default false
   */
  readonly readOnly?: boolean;
}

const freezeRole = (role: RoleDefinition): RoleDefinition =>
  Object.freeze({ ...role, classes: Object.freeze([...role.classes]) });

/**
 * The two preset roles. Frozen: they are shared by every caller.
 *
 * - `planner`: read-only (`safe`, `knowledge`, `workspace_read`, and only tools declared so): no
 *   writes, no commands, no network, no sub-agents. Its prompt carries the plan format.
 * - `actor`: full access (`safe`, `knowledge`, `network`, `workspace_read`, `workspace_write`,
 *   `workspace_create`, `workspace_delete`, `execute`, `editor_mutate`, `subagent`); `secrets` stays opt-in. Its prompt
 * carries the
 *   question format and when to ask.
 *
 * A role narrows a policy, it never widens it: the actor gets `execute` only where the session
 * policy enables it. Host roles are made with `defineRole`.
 */
export const roles: { readonly planner: RoleDefinition; readonly actor: RoleDefinition } = Object.freeze({
  planner: freezeRole({
    name: "planner",
    description: "Read-only planning: analyses, reads and proposes a plan; cannot modify anything.",
    classes: ["safe", "knowledge", "workspace_read"],
    prompt: PLANNER_PROMPT,
    readOnly: true,
  }),
  actor: freezeRole({
    name: "actor",
    description: "Execution: carries out the approved plan with full tool access.",
    classes: [
      "safe",
      "knowledge",
      "network",
      "workspace_read",
      "workspace_write",
      "workspace_create",
      "workspace_delete",
      "execute",
      "editor_mutate",
      "subagent",
    ],
    prompt: ACTOR_PROMPT,
  }),
});

/**
 * The policy narrowed to a role: its classes become those both allow (in the policy's order);
 * a read-only role also sets `declaredReadOnly`, so only tools declared read-only are offered and
 * dispatched. Every other field is kept. Returns a new object; `policy` is not modified.
 */
export function applyRole(policy: ToolPolicy, role: RoleDefinition): ToolPolicy {
  const narrowed: ToolPolicy = {
    ...policy,
    classes: policy.classes.filter((c) => role.classes.includes(c)),
    allowedMcpServers: [...policy.allowedMcpServers],
  };
  if (policy.approval) narrowed.approval = { ...policy.approval };
  if (role.readOnly === true) {
    narrowed.declaredReadOnly = true;
    narrowed.readOnlyToolClasses = [...(policy.readOnlyToolClasses ?? policy.classes)];
  }
  return narrowed;
}

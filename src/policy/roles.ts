import type { PermissionClass, ToolPolicy } from "./tool-policy.js";

/** A role: a policy preset (the classes it allows) plus the prompt text that tells the model so. */
export interface RoleDefinition {
  /** Stable role name, e.g. `"planner"`. */
  readonly name: string;
  /** One line for humans (UIs, logs). */
  readonly description: string;
  /** The permission classes the role allows; {@link applyRole} intersects a policy with them. */
  readonly classes: readonly PermissionClass[];
  /** Text appended to the system prompt while the role is active. */
  readonly prompt: string;
}

const PLANNER_PROMPT = `# CURRENT ROLE: PLANNER

You are operating in the PLANNER role. Your responsibilities:
1. Analyze the user's request thoroughly
2. Read necessary files and information (read-only access)
3. Create a detailed step-by-step plan
4. Discuss the plan with the user
5. Refine based on feedback

YOUR PERMISSIONS:
- Allowed: read files, search code, list directories
- Not allowed: write, create, or delete files
- Not allowed: execute commands

IMPORTANT:
- You CANNOT modify any files in this role
- Only read-only tools are available to you (such as read_file and list_directory)
- If you need write access, the user must switch you to the ACTOR role
- After plan approval, the user will switch you to the ACTOR role`;

const ACTOR_PROMPT = `# CURRENT ROLE: ACTOR

You are operating in the ACTOR role. Your responsibilities:
1. Execute the approved plan
2. Use all available tools to accomplish tasks
3. Make small adjustments as needed
4. Ask for approval on major changes

YOUR PERMISSIONS:
- Allowed: read, write, create, and delete files
- Allowed: execute commands
- Allowed: full tool access

AUTONOMY GUIDELINES:
- Small changes: proceed (formatting, obvious fixes)
- Medium changes: mention them, but proceed
- Large changes: ask first (deleting files, major refactors)`;

const freezeRole = (role: RoleDefinition): RoleDefinition =>
  Object.freeze({ ...role, classes: Object.freeze([...role.classes]) });

/**
 * The seed 002 role presets. Frozen: they are shared by every caller.
 *
 * - `planner`: read-only (`safe`, `knowledge`, `workspace_read`): no writes, no commands, no
 *   network, no sub-agents.
 * - `actor`: full access (`safe`, `knowledge`, `network`, `workspace_read`, `workspace_write`,
 *   `execute`, `editor_mutate`, `subagent`); `secrets` stays opt-in.
 *
 * A role narrows a policy, it never widens it: the actor gets `execute` only where the session
 * policy enables it. See {@link applyRole}.
 */
export const roles: { readonly planner: RoleDefinition; readonly actor: RoleDefinition } = Object.freeze({
  planner: freezeRole({
    name: "planner",
    description: "Read-only planning: analyses, reads and proposes a plan; cannot modify anything.",
    classes: ["safe", "knowledge", "workspace_read"],
    prompt: PLANNER_PROMPT,
  }),
  actor: freezeRole({
    name: "actor",
    description: "Execution: carries out the approved plan with full tool access.",
    classes: ["safe", "knowledge", "network", "workspace_read", "workspace_write", "execute", "editor_mutate", "subagent"],
    prompt: ACTOR_PROMPT,
  }),
});

/**
 * The policy narrowed to a role: its classes become those both allow (in the policy's order);
 * every other field is kept. Returns a new object; `policy` is not modified.
 */
export function applyRole(policy: ToolPolicy, role: RoleDefinition): ToolPolicy {
  const narrowed: ToolPolicy = {
    ...policy,
    classes: policy.classes.filter((c) => role.classes.includes(c)),
    allowedMcpServers: [...policy.allowedMcpServers],
  };
  if (policy.approval) narrowed.approval = { ...policy.approval };
  return narrowed;
}

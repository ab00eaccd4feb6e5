import { InvalidArgumentError } from "../errors/errors.js";
import type { RoleDefinition } from "./roles.js";

const ROLE_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/**
 * Declares a role beside the `planner` and `actor` presets (a commander, designer,
 * reviewer, ...): the permission classes it allows, the prompt appended while it is active and,
 * for a role that must change nothing, `readOnly`. Give host roles to
 * `createAgentRuntime({ roles })`; an agent's `role` and `runtime.setRole` may then name them.
 *
 * Throws `InvalidArgumentError` naming every problem. Returns a frozen copy.
 *
 * @example
 * const commander = defineRole({ name: "commander", description: "Orchestrates; delegates edits",
 *   classes: ["safe", "knowledge", "workspace_read", "subagent"], prompt: "# CURRENT ROLE: COMMANDER ..." });
 */
export function defineRole(definition: RoleDefinition): RoleDefinition {
  const problems: string[] = [];
  const d = (definition ?? {}) as Partial<RoleDefinition>;
  if (typeof d.name !== "string" || !ROLE_NAME.test(d.name)) problems.push(`name must match ${String(ROLE_NAME)}`);
  if (typeof d.description !== "string") problems.push("description must be a string");
  if (!Array.isArray(d.classes) || !d.classes.every((c) => typeof c === "string" && c !== ""))
    problems.push("classes must be an array of permission class names");
  if (typeof d.prompt !== "string") problems.push("prompt must be a string");
  if (d.readOnly !== undefined && typeof d.readOnly !== "boolean") problems.push("readOnly must be a boolean");
  if (problems.length > 0)
    throw new InvalidArgumentError(
      `defineRole${typeof d.name === "string" ? ` "${d.name}"` : ""}: ${problems.join("; ")}`,
    );
  const role: RoleDefinition = {
    name: d.name!,
    description: d.description!,
    classes: Object.freeze([...d.classes!]),
    prompt: d.prompt!,
    ...(d.readOnly !== undefined && { readOnly: d.readOnly }),
  };
  return Object.freeze(role);
}

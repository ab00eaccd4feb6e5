import type { PermissionClass } from "../contracts/tool-policy.js";
import type { Tool } from "../contracts/tool.js";

/** The classes a tool needs, every one of them: its `permissionClass` as a list (a single class as a list of one). */
export function toolPermissionClasses(tool: Pick<Tool, "permissionClass">): readonly PermissionClass[] {
  const declared: unknown = tool.permissionClass;
  return Array.isArray(declared) ? (declared as PermissionClass[]) : [declared as PermissionClass];
}

/** The classes of `tool` that `enabled` lacks, in the tool's order (none: every class is enabled). */
export function missingPermissionClasses(
  tool: Pick<Tool, "permissionClass">,
  enabled: readonly PermissionClass[],
): PermissionClass[] {
  return toolPermissionClasses(tool).filter((c) => !enabled.includes(c));
}

/** `its permission class "a" is` / `its permission classes "a", "b" are`, for refusal messages. */
export function describePermissionClasses(classes: readonly PermissionClass[]): string {
  const quoted = classes.map((c) => JSON.stringify(c)).join(", ");
  return classes.length === 1 ? `its permission class ${quoted} is` : `its permission classes ${quoted} are`;
}

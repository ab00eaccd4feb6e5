import type { ToolPolicy } from "../contracts/tool-policy.js";
import type { Tool } from "../contracts/tool.js";
import { describePermissionClasses, missingPermissionClasses, toolPermissionClasses } from "./permission-classes.js";

/**
 * Marks a tool whose `permissionClass` was not given by its author (`defineTool` filled in
 * `"safe"`). Not enumerable: it never shows in JSON or spreads of the tool.
 */
export const CLASS_DEFAULTED: unique symbol = Symbol.for("agentry.tool.classDefaulted");

/**
 * Whether a tool's author declared it read-only for a read-only role (the planner): `readOnly:
 * true` on the tool (MCP tools with `readOnlyHint`), or a `permissionClass` given explicitly whose
 * classes are ALL among `readClasses` (`["workspace_read", "workspace_write"]` is not read-only).
 * A tool that left its class to `defineTool`'s default is not declared, even though that default
 * is `"safe"`: plan mode must be truly read-only. A tool with an empty class list is not either.
 */
export function isDeclaredReadOnly(tool: Tool, readClasses: readonly string[]): boolean {
  if (tool.readOnly === true) return true;
  if ((tool as { [CLASS_DEFAULTED]?: boolean })[CLASS_DEFAULTED] === true) return false;
  const classes = toolPermissionClasses(tool);
  return classes.length > 0 && classes.every((c) => readClasses.includes(c));
}

/** Why `enabled` does not cover every class of `tool`, or undefined when it does. */
function missingRefusal(tool: Tool, enabled: readonly string[], where: string): string | undefined {
  if (toolPermissionClasses(tool).length === 0) return "it declares no permission class";
  const missing = missingPermissionClasses(tool, enabled);
  return missing.length === 0 ? undefined : `${describePermissionClasses(missing)} not enabled ${where}`;
}

/**
 * Whether a policy lets a tool run, by class (every class the tool needs must be enabled) and,
 * under a read-only policy (the planner), by declaration: explicit classes the policy enables, or
 * `readOnly: true` with classes in `readOnlyToolClasses`. Why a tool is refused, as words for the
 * model, or undefined.
 */
export function classRefusal(tool: Tool, policy: ToolPolicy): string | undefined {
  if (policy.declaredReadOnly === true) {
    if (tool.readOnly === true)
      return missingRefusal(tool, policy.readOnlyToolClasses ?? policy.classes, "by the policy");
    const refused = missingRefusal(tool, policy.classes, "in this read-only role");
    if (refused !== undefined) return refused;
    return isDeclaredReadOnly(tool, policy.classes)
      ? undefined
      : "it is not declared read-only, and the current role is read-only";
  }
  return missingRefusal(tool, policy.classes, "by the policy");
}

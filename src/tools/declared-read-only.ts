import type { ToolPolicy } from "../contracts/tool-policy.js";
import type { Tool } from "../contracts/tool.js";

/**
 * Marks a tool whose `permissionClass` was not given by its author (`defineTool` filled in
 * `"safe"`). Not enumerable: it never shows in JSON or spreads of the tool.
 */
export const CLASS_DEFAULTED: unique symbol = Symbol.for("agentry.tool.classDefaulted");

/**
 * Whether a tool's author declared it read-only for a read-only role (the planner): `readOnly:
 * true` on the tool (MCP tools with `readOnlyHint`), or a `permissionClass` given explicitly that
 * the role allows. A tool that left its class to `defineTool`'s default is not declared, even
 * though that default is `"safe"`: plan mode must be truly read-only.
 */
export function isDeclaredReadOnly(tool: Tool, readClasses: readonly string[]): boolean {
  if (tool.readOnly === true) return true;
  if ((tool as { [CLASS_DEFAULTED]?: boolean })[CLASS_DEFAULTED] === true) return false;
  return readClasses.includes(tool.permissionClass);
}

/**
 * Whether a policy lets a tool run, by class and, under a read-only policy (the planner), by
 * declaration: an explicit class the policy enables, or `readOnly: true` with a class in
 * `readOnlyToolClasses`. Why a tool is refused, as words for the model, or undefined.
 */
export function classRefusal(tool: Tool, policy: ToolPolicy): string | undefined {
  if (policy.declaredReadOnly === true) {
    if (tool.readOnly === true) {
      return (policy.readOnlyToolClasses ?? policy.classes).includes(tool.permissionClass)
        ? undefined
        : `its permission class "${tool.permissionClass}" is not enabled by the policy`;
    }
    if (!policy.classes.includes(tool.permissionClass)) return `its permission class "${tool.permissionClass}" is not enabled in this read-only role`;
    return isDeclaredReadOnly(tool, policy.classes) ? undefined : "it is not declared read-only, and the current role is read-only";
  }
  return policy.classes.includes(tool.permissionClass) ? undefined : `its permission class "${tool.permissionClass}" is not enabled by the policy`;
}

import type { Tool } from "../contracts/tool.js";
import { createJsonSchemaValidator, type ValidationResult, type ValueValidator } from "../schema/validate.js";

/** Tools made by `defineTool` carry their own validator under this key (made when the tool is defined). */
export const TOOL_VALIDATOR = Symbol.for("agentry.tool.validator");

const cache = new WeakMap<object, ValueValidator>();

/** Validates a call's arguments against the tool's schema; cached per tool object (and schema). */
export function validateToolArgs(tool: Tool, args: unknown): ValidationResult {
  const own = (tool as { [TOOL_VALIDATOR]?: ValueValidator })[TOOL_VALIDATOR];
  if (own) return own(args);
  let validator = cache.get(tool.inputSchema);
  if (!validator) {
    validator = createJsonSchemaValidator(tool.inputSchema);
    cache.set(tool.inputSchema, validator);
  }
  return validator(args);
}

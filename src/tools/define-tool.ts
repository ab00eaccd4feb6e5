import { InvalidArgumentError } from "../errors/errors.js";
import type { PermissionClass } from "../contracts/tool-policy.js";
import type { JsonSchema, AnyZodSchema, JsonValue } from "../contracts/json-schema.js";
import { isZodSchema, toJsonSchema } from "../schema/to-json-schema.js";
import { unresolvedRefs } from "../schema/unresolved-refs.js";
import { createJsonSchemaValidator, createZodValidator, type ValueValidator } from "../schema/validate.js";
import { isTimeLimit } from "../internal/timer-delay.js";
import { TOOL_VALIDATOR } from "./validate-tool-args.js";
import { CLASS_DEFAULTED } from "./declared-read-only.js";
import type { InferToolInput, Tool, ToolContext } from "../contracts/tool.js";

/** What `defineTool` takes. `C` types `ctx.context` (annotate `ctx: ToolContext<MyContext>` to set it). */
export interface ToolDefinition<S, O, C = JsonValue> {
  /** Matches `/^[a-zA-Z0-9_.-]{1,64}$/`. */
  name: string;
  description: string;
  /** A zod schema (3.25+ or 4) or a plain JSON Schema object. */
  input: S;
  /**
   * The class the tool needs, or a list of classes that are all needed (`["workspace_read",
   * "workspace_write"]`); a list is copied. Give it explicitly for a tool that may run under the
   * planner: a tool whose class was left to the default never runs in plan mode (it is not
   * declared read-only), nor does one with any class that is not a read class.
   * @default "safe"
   */
  permissionClass?: PermissionClass | readonly PermissionClass[];
  /** Declares the tool read-only whatever its class (it may run under the planner). @default false */
  readOnly?: boolean;
  capabilities?: string[];
  /** @default true */
  parallelSafe?: boolean;
  exclusiveLock?: string;
  requiresApproval?: boolean | ((args: InferToolInput<S>, ctx: ToolContext<C>) => boolean | Promise<boolean>);
  contexts?: string[];
  /**
   * Per-call time limit in milliseconds. Unset, `Infinity` or above 2^31-1 = no limit beyond the
   * turn's; negative or NaN throws `InvalidArgumentError`.
   */
  timeoutMs?: number;
  /**
   * A zod schema or JSON Schema of the tool's result (its JSON Schema form becomes the tool's
   * `outputSchema`): a client tool's result (`runtime.submitToolResult`) must be valid for it,
   * checked as JSON Schema (a zod transform does not apply). A server-side `execute`'s result is
   * not checked. @default undefined (any JSON result)
   */
  output?: AnyZodSchema | JsonSchema;
  /**
   * Runs the call. May be an `async function*`: each yielded value is a `tool_progress` event, the
   * returned value is the result the model reads. Leave it out for a tool that runs in the client
   * (the turn waits for `runtime.submitToolResult`; see `Tool.execute`).
   * @default undefined (a client tool)
   */
  execute?(args: InferToolInput<S>, ctx: ToolContext<C>): O | Promise<O> | AsyncGenerator<unknown, O, undefined>;
}

const TOOL_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/**
 * Declares a tool. With a zod schema, `args` is typed from it and validated by zod (defaults and
 * transforms apply); with a JSON Schema, arguments are validated by an interpreter that needs no `eval`.
 *
 * Arguments are written by the model, so every `pattern` of the schema runs on a linear-time
 * regex engine (see `createJsonSchemaValidator`): with a zod schema that has `.regex()` checks,
 * the arguments are first checked against the schema's JSON Schema with those patterns, and zod's
 * own (backtracking) `RegExp` only sees strings that match. A pattern outside the engine's subset
 * (backreferences, lookaround, `\p{...}`) is refused here rather than run; zod's built-in string
 * formats (`z.email()`, `z.uuid()`, ...) are left to zod. JSON Schema `format` is an annotation.
 *
 * Without `execute` the tool runs in the client: the turn waits for `runtime.submitToolResult`
 * (see `Tool.execute`).
 *
 * Throws `InvalidArgumentError` for a name outside `/^[a-zA-Z0-9_.-]{1,64}$/`, a negative or NaN
 * `timeoutMs`, an empty or non-string `permissionClass`, a JSON Schema with a `$ref` that resolves to nothing (named in
 * the message), and a
 * `pattern` outside the linear-time subset.
 *
 * @example
 * const add = defineTool({
 *   name: "add", description: "Add two numbers",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 * });
 */
export function defineTool<S extends AnyZodSchema | JsonSchema, O, C = JsonValue>(
  definition: ToolDefinition<S, O, C> & Required<Pick<ToolDefinition<S, O, C>, "execute">>,
): Tool<InferToolInput<S>, O, C> & Required<Pick<Tool<InferToolInput<S>, O, C>, "execute">>;
export function defineTool<S extends AnyZodSchema | JsonSchema, O = unknown, C = JsonValue>(
  definition: ToolDefinition<S, O, C>,
): Tool<InferToolInput<S>, O, C>;
export function defineTool<S extends AnyZodSchema | JsonSchema, O, C = JsonValue>(
  definition: ToolDefinition<S, O, C>,
): Tool<InferToolInput<S>, O, C> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new InvalidArgumentError(`Invalid tool name "${definition.name}": must match ${String(TOOL_NAME)}`);
  }
  if (definition.timeoutMs !== undefined && !isTimeLimit(definition.timeoutMs)) {
    throw new InvalidArgumentError(
      `Tool "${definition.name}": timeoutMs must be a number of 0 or more (Infinity = no limit), got ${String(definition.timeoutMs)}`,
    );
  }
  const inputSchema = toJsonSchema(definition.input);
  if (!isZodSchema(definition.input)) {
    let dangling: string[];
    try {
      dangling = unresolvedRefs(inputSchema);
    } catch (error) {
      throw new InvalidArgumentError(
        `Tool "${definition.name}": invalid input schema: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    if (dangling.length > 0) {
      throw new InvalidArgumentError(
        `Tool "${definition.name}": input schema has $ref${dangling.length === 1 ? "" : "s"} that resolve${dangling.length === 1 ? "s" : ""} to nothing: ${dangling.map((r) => JSON.stringify(r)).join(", ")}`,
      );
    }
  }
  const validator = toolValidator(definition.name, definition.input, inputSchema);
  const tool: Tool<InferToolInput<S>, O, C> = {
    name: definition.name,
    description: definition.description,
    inputSchema,
    permissionClass: permissionClassOf(definition.name, definition.permissionClass),
    parallelSafe: definition.parallelSafe ?? true,
  };
  // Called as a method, so an `execute` that uses `this` still sees the definition.
  if (typeof definition.execute === "function") tool.execute = (args, ctx) => definition.execute!(args, ctx);
  else if (definition.execute !== undefined)
    throw new InvalidArgumentError(`Tool "${definition.name}": execute must be a function when given`);
  if (definition.output !== undefined) tool.outputSchema = outputSchemaOf(definition.name, definition.output);
  if (definition.capabilities !== undefined) tool.capabilities = definition.capabilities;
  if (definition.exclusiveLock !== undefined) tool.exclusiveLock = definition.exclusiveLock;
  if (definition.requiresApproval !== undefined) tool.requiresApproval = definition.requiresApproval;
  if (definition.contexts !== undefined) tool.contexts = definition.contexts;
  if (definition.timeoutMs !== undefined) tool.timeoutMs = definition.timeoutMs;
  if (definition.readOnly !== undefined) tool.readOnly = definition.readOnly;
  if (definition.permissionClass === undefined)
    Object.defineProperty(tool, CLASS_DEFAULTED, { value: true, enumerable: false });
  Object.defineProperty(tool, TOOL_VALIDATOR, { value: validator, enumerable: false });
  return tool;
}

/** The JSON Schema form of a tool's `output`, checked now so that a schema the validator cannot use fails here. */
function outputSchemaOf(name: string, output: AnyZodSchema | JsonSchema): JsonSchema {
  try {
    const schema = toJsonSchema(output);
    createJsonSchemaValidator(schema);
    return schema;
  } catch (error) {
    throw new InvalidArgumentError(
      `Tool "${name}": invalid output schema: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The declared class (or a copy of the list), checked: every class a non-empty string, and at least one. */
function permissionClassOf(
  name: string,
  declared: PermissionClass | readonly PermissionClass[] | undefined,
): PermissionClass | PermissionClass[] {
  if (declared === undefined) return "safe";
  const list: readonly unknown[] = typeof declared === "string" ? [declared] : declared;
  if (list.length === 0 || list.some((c) => typeof c !== "string" || c === "")) {
    throw new InvalidArgumentError(
      `Tool "${name}": permissionClass must be a non-empty class name or a non-empty list of them`,
    );
  }
  return typeof declared === "string" ? declared : [...new Set(declared)];
}

/** The tool's argument validator, made now so that a pattern the linear-time engine cannot run fails here. */
function toolValidator(name: string, input: AnyZodSchema | JsonSchema, inputSchema: JsonSchema): ValueValidator {
  try {
    return isZodSchema(input) ? createZodValidator(input, inputSchema) : createJsonSchemaValidator(inputSchema);
  } catch (error) {
    throw new InvalidArgumentError(
      `Tool "${name}": invalid input schema: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

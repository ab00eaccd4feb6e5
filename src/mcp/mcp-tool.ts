import type { PermissionClass } from "../contracts/tool-policy.js";
import type { JsonSchema } from "../contracts/json-schema.js";
import { createOutsideSchemaValidator } from "../schema/outside-schema-validator.js";
import type { ValueValidator } from "../schema/validate.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import { TOOL_VALIDATOR } from "../tools/validate-tool-args.js";
import { createProgressMailbox } from "./progress-mailbox.js";

/** When MCP tools ask the approval handler before running. */
export type McpApproval = "destructive" | "always" | "never";

/** The hints of an MCP tool (protocol `ToolAnnotations`); all optional, all untrusted. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** An MCP tool as `tools/list` describes it (the fields Agentry reads). */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  /** When given, a `structuredContent` that does not match it is an error result. */
  outputSchema?: unknown;
  annotations?: McpToolAnnotations;
  /**
   * How the tool runs (protocol 2025-11-25): `taskSupport` `"required"` tools run only as tasks,
   * `"optional"` ones as tasks when the server declares task support for tool calls.
   */
  execution?: { taskSupport?: unknown };
}

/** What a tool call hands `McpToolMapping.call` besides its arguments. */
export interface McpCallOptions {
  /** Told each progress notification's params (untrusted; `execute` bounds them). Must not throw. */
  onProgress?: (progress: unknown) => void;
  /** The tool's `execution.taskSupport`, when it declares `"required"` or `"optional"`. */
  taskSupport?: "required" | "optional";
}

/** How a server's tools become Agentry tools. */
export interface McpToolMapping {
  /** The connection's name: the tools' name prefix and their `mcpServer`. */
  server: string;
  permissionClass: PermissionClass;
  approval: McpApproval;
  /**
   * Longest input or output schema, in bytes of JSON: a tool whose schema is larger is left out
   * (the input schema goes out with every model request). @default 16_384
   */
  maxSchemaBytes?: number;
  /** Largest arguments or structured result checked against a schema, in bytes of JSON. @default 33_554_432 (32 MiB) */
  maxValueBytes?: number;
  /**
   * Runs `tools/call` on the server (as a task when `options.taskSupport` asks for one) and maps its
   * result (throws for an error result).
   */
  call(toolName: string, args: unknown, ctx: ToolContext, options?: McpCallOptions): Promise<unknown>;
}

const TOOL_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;
/** Longest description kept: a server's text goes into every request's tool list. */
const MAX_DESCRIPTION_CHARS = 4_000;
const DEFAULT_MAX_SCHEMA_BYTES = 16_384;
const DEFAULT_MAX_VALUE_BYTES = 32 * 1024 * 1024;

/**
 * At most `max` characters of `text`, as a string of its own: a slice would keep the whole
 * original alive (a 10 MB description for as long as the tool lives). The JSON round trip copies,
 * and keeps a lone surrogate at the cut as it is.
 */
function ownCopy(text: string, max: number): string {
  const kept = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.parse(JSON.stringify(kept)) as string;
}

/**
 * Whether a tool with these annotations asks for approval. Hints as the protocol defines them:
 * `destructiveHint` defaults to true and only means something when `readOnlyHint` is not true.
 */
export function mcpToolRequiresApproval(annotations: McpToolAnnotations | undefined, approval: McpApproval): boolean {
  if (approval === "always") return true;
  if (approval === "never") return false;
  return annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false;
}

/**
 * The Agentry name of an MCP tool: `${server}.${tool}`, characters outside `[a-zA-Z0-9_.-]`
 * replaced by `_`; `undefined` when longer than 64 characters (the tool is then left out).
 */
export function mcpToolName(server: string, tool: string): string | undefined {
  const name = `${server}.${tool.replace(/[^a-zA-Z0-9_.-]/g, "_")}`;
  return TOOL_NAME.test(name) ? name : undefined;
}

/**
 * One MCP tool as an Agentry `Tool`, or a reason it is left out (a name that does not fit, an
 * input or output schema over `maxSchemaBytes` or outside the bounds of `OUTSIDE_SCHEMA_LIMITS`).
 * See the annotation table in the README ("MCP").
 *
 * Both schemas are the server's, so they are checked with bounded cost: `pattern`s on the
 * linear-time engine, `$ref` expansion and validation work capped (see `createOutsideSchemaValidator`).
 * Arguments that do not match the input schema, and a `structuredContent` that does not match the
 * output schema, are error results. The description is cut to 4,000 characters (and copied).
 *
 * `execute` is an async generator: it yields an `McpProgress` for each progress notification
 * of the call (and each status of a task-based call), bounded, and returns the mapped result.
 */
export function toAgentryTool(definition: McpToolDefinition, mapping: McpToolMapping): Tool | { skipped: string } {
  const name = typeof definition.name === "string" ? mcpToolName(mapping.server, definition.name) : undefined;
  if (name === undefined) {
    return {
      skipped: `MCP tool "${ownCopy(String(definition.name), 100)}" of server "${mapping.server}" is left out: its name does not fit ${String(TOOL_NAME)} as "${mapping.server}.<tool>".`,
    };
  }
  const schema = isObject(definition.inputSchema) ? (definition.inputSchema as JsonSchema) : { type: "object" };
  const bounds = {
    maxSchemaBytes: mapping.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES,
    maxValueBytes: mapping.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES,
  };
  let validate: ValueValidator;
  let validateOutput: ValueValidator | undefined;
  try {
    validate = createOutsideSchemaValidator(schema, { ...bounds, subject: "the arguments" });
  } catch (error) {
    return { skipped: `MCP tool "${name}" is left out: its input schema cannot be used (${messageOf(error)}).` };
  }
  try {
    if (isObject(definition.outputSchema))
      validateOutput = createOutsideSchemaValidator(definition.outputSchema, { ...bounds, subject: "the result" });
  } catch (error) {
    return { skipped: `MCP tool "${name}" is left out: its output schema cannot be used (${messageOf(error)}).` };
  }
  const annotations = isObject(definition.annotations) ? definition.annotations : undefined;
  const readOnly = annotations?.readOnlyHint === true;
  const description =
    [definition.description, definition.title, annotations?.title].find(
      (text): text is string => typeof text === "string" && text !== "",
    ) ?? `Tool "${definition.name}" of MCP server "${mapping.server}".`;
  const remoteName = definition.name;
  const execution = isObject(definition.execution) ? definition.execution.taskSupport : undefined;
  const taskSupport = execution === "required" || execution === "optional" ? execution : undefined;
  const tool: Tool = {
    name,
    description: ownCopy(description, MAX_DESCRIPTION_CHARS),
    inputSchema: schema,
    permissionClass: mapping.permissionClass,
    mcpServer: mapping.server,
    // Read-only calls may overlap; anything that may change state runs one at a time.
    parallelSafe: readOnly,
    requiresApproval: mcpToolRequiresApproval(annotations, mapping.approval),
    execute: async function* (args: unknown, ctx: ToolContext) {
      const mailbox = createProgressMailbox();
      const pending = mapping.call(remoteName, args, ctx, {
        onProgress: (progress) => mailbox.push(progress),
        ...(taskSupport !== undefined && { taskSupport }),
      });
      // Also marks a rejection handled when the turn stops waiting (the generator is closed at a yield).
      const settled = pending.then(
        () => undefined,
        () => undefined,
      );
      for (;;) {
        const progress = await Promise.race([settled, mailbox.next()]);
        if (progress === undefined) break;
        yield progress;
      }
      const value = await pending;
      if (!validateOutput) return value;
      const checked = validateOutput(value);
      if (!checked.ok)
        throw new Error(
          `MCP tool "${name}" answered with a structured result that does not match its output schema: ${checked.message}`,
        );
      return value;
    },
  };
  if (readOnly) tool.readOnly = true;
  Object.defineProperty(tool, TOOL_VALIDATOR, { value: validate, enumerable: false });
  return tool;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import type { PermissionClass } from "../contracts/tool-policy.js";
import type { JsonSchema } from "../contracts/json-schema.js";
import { createJsonSchemaValidator, type ValueValidator } from "../schema/validate.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import { TOOL_VALIDATOR } from "../tools/validate-tool-args.js";

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
  annotations?: McpToolAnnotations;
}

/** How a server's tools become Agentry tools. */
export interface McpToolMapping {
  /** The connection's name: the tools' name prefix and their `mcpServer`. */
  server: string;
  permissionClass: PermissionClass;
  approval: McpApproval;
  /** Runs `tools/call` on the server and maps its result (throws for an error result). */
  call(toolName: string, args: unknown, ctx: ToolContext): Promise<unknown>;
}

const TOOL_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;
/** Longest description kept: a server's text goes into every request's tool list. */
const MAX_DESCRIPTION_CHARS = 4_000;

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
 * input schema Agentry cannot compile). See the annotation table in the README ("MCP").
 */
export function toAgentryTool(definition: McpToolDefinition, mapping: McpToolMapping): Tool | { skipped: string } {
  const name = typeof definition.name === "string" ? mcpToolName(mapping.server, definition.name) : undefined;
  if (name === undefined) {
    return {
      skipped: `MCP tool "${String(definition.name).slice(0, 100)}" of server "${mapping.server}" is left out: its name does not fit ${String(TOOL_NAME)} as "${mapping.server}.<tool>".`,
    };
  }
  const schema = isObject(definition.inputSchema) ? (definition.inputSchema as JsonSchema) : { type: "object" };
  let validate: ValueValidator;
  try {
    validate = createJsonSchemaValidator(schema);
  } catch (error) {
    return { skipped: `MCP tool "${name}" is left out: its input schema cannot be used (${messageOf(error)}).` };
  }
  const annotations = isObject(definition.annotations) ? definition.annotations : undefined;
  const readOnly = annotations?.readOnlyHint === true;
  const description =
    [definition.description, definition.title, annotations?.title].find((text): text is string => typeof text === "string" && text !== "") ??
    `Tool "${definition.name}" of MCP server "${mapping.server}".`;
  const remoteName = definition.name;
  const tool: Tool = {
    name,
    description: description.length > MAX_DESCRIPTION_CHARS ? `${description.slice(0, MAX_DESCRIPTION_CHARS)}…` : description,
    inputSchema: schema,
    permissionClass: mapping.permissionClass,
    mcpServer: mapping.server,
    // Read-only calls may overlap; anything that may change state runs one at a time.
    parallelSafe: readOnly,
    requiresApproval: mcpToolRequiresApproval(annotations, mapping.approval),
    execute: (args: unknown, ctx: ToolContext) => mapping.call(remoteName, args, ctx),
  };
  if (readOnly) tool.readOnly = true;
  // The schema is the server's: an invalid regex or an unresolvable $ref surfaces only while
  // validating, and must become an error result, not a failed turn.
  const guarded: ValueValidator = (args) => {
    try {
      return validate(args);
    } catch (error) {
      return { ok: false, message: `the server's input schema cannot be checked (${messageOf(error)})` };
    }
  };
  Object.defineProperty(tool, TOOL_VALIDATOR, { value: guarded, enumerable: false });
  return tool;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

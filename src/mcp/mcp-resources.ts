import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResultContentPart } from "../contracts/message.js";
import { McpConnectionError, McpRequestError } from "../errors/errors.js";
import { boundToolResultContent } from "../internal/tool-result-content.js";
import type { McpConnection } from "./mcp-connection.js";
import { mcpContentPart, type McpContentBlock } from "./mcp-result.js";
import { messageOf, type McpServerSettings, type McpSession } from "./mcp-session.js";
import type {
  McpPrompt,
  McpPromptArgument,
  McpPromptMessage,
  McpPromptResult,
  McpResource,
  McpResourceContents,
} from "./mcp-resource-types.js";

/**
 * Bounds of what `listResources`, `listPrompts`, `readResource` and `getPrompt` take from a server:
 * list pages followed (`pages`), items kept (`items`; the rest are left out with an
 * `mcp_list_truncated` warning), items of one read or prompt (`contents`), characters of a
 * description (`descriptionChars`), of a name, title, media type or argument (`nameChars`) and of
 * a URI (`uriChars`; an item whose URI or name is longer, or missing, is left out). Texts and blobs
 * of contents are bounded by the connection's `maxMessageBytes`.
 */
export const MCP_LIST_LIMITS = {
  pages: 50,
  items: 1_000,
  contents: 100,
  descriptionChars: 4_000,
  nameChars: 1_000,
  uriChars: 2_048,
} as const;

/** What the connection's resource and prompt methods need. */
export interface McpRequestTarget {
  settings: McpServerSettings;
  /** The live session, or a thrown `McpConnectionError` when there is none. */
  session(): McpSession;
}

/** Reads every page of a list, at most `MCP_LIST_LIMITS.pages` pages and `items` items. */
async function listAll<T>(
  target: McpRequestTarget,
  method: string,
  page: (session: McpSession, cursor: string | undefined) => Promise<{ items: unknown[]; nextCursor?: string }>,
  map: (item: Record<string, unknown>) => T | undefined,
): Promise<T[]> {
  const { settings } = target;
  const out: T[] = [];
  let cursor: string | undefined;
  for (let index = 0; index < MCP_LIST_LIMITS.pages; index++) {
    const result = await request(target, method, (session) => page(session, cursor));
    for (const item of result.items) {
      if (out.length === MCP_LIST_LIMITS.items) {
        settings.warn(
          `MCP server "${settings.name}" lists more than ${MCP_LIST_LIMITS.items} items (${method}); the rest are left out.`,
          "mcp_list_truncated",
        );
        return out;
      }
      const mapped = typeof item === "object" && item !== null ? map(item as Record<string, unknown>) : undefined;
      if (mapped !== undefined) out.push(mapped);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return out;
  }
  settings.warn(
    `MCP server "${settings.name}" sent more than ${MCP_LIST_LIMITS.pages} pages (${method}); the rest are left out.`,
    "mcp_list_truncated",
  );
  return out;
}

/** Runs one request on the live session; any failure is an `McpRequestError` (or `McpConnectionError` when not connected). */
async function request<T>(
  target: McpRequestTarget,
  method: string,
  run: (session: McpSession) => Promise<T>,
): Promise<T> {
  const session = target.session();
  const { name } = target.settings;
  try {
    return await run(session);
  } catch (error) {
    if (error instanceof McpConnectionError) throw error;
    const why = messageOf(error);
    throw new McpRequestError(
      `MCP server "${name}" failed ${method}: ${why.length > 2_000 ? `${why.slice(0, 2_000)}…` : why}`,
      { server: name, method, cause: error, ...(error instanceof McpError && { code: error.code }) },
    );
  }
}

/** The server's resources (`resources/list`, every page, bounded). */
export function listMcpResources(target: McpRequestTarget): Promise<McpResource[]> {
  const timeout = target.settings.connectTimeoutMs;
  return listAll(
    target,
    "resources/list",
    async (session, cursor) => {
      const result = await session.client.listResources(cursor === undefined ? undefined : { cursor }, { timeout });
      return { items: result.resources, ...(result.nextCursor !== undefined && { nextCursor: result.nextCursor }) };
    },
    (item) => {
      const uri = bounded(item.uri, MCP_LIST_LIMITS.uriChars);
      const name = bounded(item.name, MCP_LIST_LIMITS.nameChars);
      if (uri === undefined || name === undefined) return undefined;
      const resource: McpResource = { uri, name };
      copyText(resource, "title", item.title, MCP_LIST_LIMITS.nameChars);
      copyText(resource, "description", item.description, MCP_LIST_LIMITS.descriptionChars);
      copyText(resource, "mimeType", item.mimeType, MCP_LIST_LIMITS.nameChars);
      if (typeof item.size === "number" && Number.isFinite(item.size)) resource.size = item.size;
      return resource;
    },
  );
}

/** One resource's contents (`resources/read`): at most `MCP_LIST_LIMITS.contents` items. */
export async function readMcpResource(target: McpRequestTarget, uri: string): Promise<McpResourceContents[]> {
  const { timeoutMs } = target.settings;
  const result = await request(target, "resources/read", (session) =>
    session.client.readResource({ uri }, { timeout: timeoutMs }),
  );
  const out: McpResourceContents[] = [];
  for (const item of result.contents.slice(0, MCP_LIST_LIMITS.contents) as Record<string, unknown>[]) {
    const itemUri = bounded(item.uri, MCP_LIST_LIMITS.uriChars) ?? uri;
    const mimeType = bounded(item.mimeType, MCP_LIST_LIMITS.nameChars);
    const base = { uri: itemUri, ...(mimeType !== undefined && { mimeType }) };
    if (typeof item.text === "string") out.push({ ...base, text: item.text });
    else if (typeof item.blob === "string") out.push({ ...base, blob: item.blob });
  }
  return out;
}

/** The server's prompts (`prompts/list`, every page, bounded). */
export function listMcpPrompts(target: McpRequestTarget): Promise<McpPrompt[]> {
  const timeout = target.settings.connectTimeoutMs;
  return listAll(
    target,
    "prompts/list",
    async (session, cursor) => {
      const result = await session.client.listPrompts(cursor === undefined ? undefined : { cursor }, { timeout });
      return { items: result.prompts, ...(result.nextCursor !== undefined && { nextCursor: result.nextCursor }) };
    },
    (item) => {
      const name = bounded(item.name, MCP_LIST_LIMITS.nameChars);
      if (name === undefined) return undefined;
      const prompt: McpPrompt = { name, arguments: promptArguments(item.arguments) };
      copyText(prompt, "title", item.title, MCP_LIST_LIMITS.nameChars);
      copyText(prompt, "description", item.description, MCP_LIST_LIMITS.descriptionChars);
      return prompt;
    },
  );
}

/** A prompt filled in with `args` (`prompts/get`): at most `MCP_LIST_LIMITS.contents` messages. */
export async function getMcpPrompt(
  target: McpRequestTarget,
  name: string,
  args: Record<string, string> = {},
): Promise<McpPromptResult> {
  const { timeoutMs } = target.settings;
  const result = await request(target, "prompts/get", (session) =>
    session.client.getPrompt({ name, arguments: args }, { timeout: timeoutMs }),
  );
  const messages = result.messages.slice(0, MCP_LIST_LIMITS.contents).map((message): McpPromptMessage => ({
    role: message.role === "assistant" ? "assistant" : "user",
    content: boundedPart(mcpContentPart(message.content as McpContentBlock)),
  }));
  const out: McpPromptResult = { messages };
  copyText(out, "description", result.description, MCP_LIST_LIMITS.descriptionChars);
  return out;
}

/** A media part held to the bounds of tool results' media (a note in its place beyond them). */
function boundedPart(part: ToolResultContentPart): ToolResultContentPart {
  return boundToolResultContent({ type: "content", parts: [part] }).parts[0]!;
}

function promptArguments(value: unknown): McpPromptArgument[] {
  if (!Array.isArray(value)) return [];
  const out: McpPromptArgument[] = [];
  for (const item of value.slice(0, MCP_LIST_LIMITS.contents) as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    const raw = item as Record<string, unknown>;
    const name = bounded(raw.name, MCP_LIST_LIMITS.nameChars);
    if (name === undefined) continue;
    const argument: McpPromptArgument = { name, required: raw.required === true };
    copyText(argument, "description", raw.description, MCP_LIST_LIMITS.descriptionChars);
    out.push(argument);
  }
  return out;
}

/** A string of at most `max` characters, copied (a slice would keep a huge original alive); undefined otherwise. */
function bounded(value: unknown, max: number): string | undefined {
  if (typeof value !== "string" || value === "" || value.length > max) return undefined;
  return JSON.parse(JSON.stringify(value)) as string;
}

/** Sets `target[key]` to `value` cut to `max` characters (and copied), when it is a non-empty string. */
function copyText<T extends object>(target: T, key: keyof T & string, value: unknown, max: number): void {
  if (typeof value !== "string" || value === "") return;
  const kept = value.length > max ? `${value.slice(0, max)}…` : value;
  (target as Record<string, unknown>)[key] = JSON.parse(JSON.stringify(kept)) as string;
}

/** A connection's resource and prompt methods, over `target`. */
export function mcpRequestMethods(
  target: McpRequestTarget,
): Pick<McpConnection, "listResources" | "readResource" | "listPrompts" | "getPrompt"> {
  return {
    listResources: () => listMcpResources(target),
    readResource: (uri) => readMcpResource(target, uri),
    listPrompts: () => listMcpPrompts(target),
    getPrompt: (name, args) => getMcpPrompt(target, name, args),
  };
}

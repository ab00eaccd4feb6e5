import type { ToolResultContentPart } from "../contracts/message.js";
import { boundToolResultContent } from "../internal/tool-result-content.js";

/** One content block of an MCP tool result (or prompt message), as far as Agentry reads it. */
export interface McpContentBlock {
  type: string;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };
}

/** The parts of an MCP `tools/call` result that Agentry maps. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Old servers (protocol 2024-10-07) answer with `toolResult`. */
  toolResult?: unknown;
}

/** Longest error text kept from a server's `isError` result (the loop does not cap error texts). */
const MAX_ERROR_CHARS = 8_000;
/** Deepest nesting of a result's `structuredContent` (or old `toolResult`); deeper is an error result. */
export const MAX_RESULT_DEPTH = 64;

/** Whether a JSON value nests deeper than `max` arrays and objects (iterative: any depth is fine to ask about). */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth >= max) return true;
    for (const inner of Array.isArray(item) ? item : Object.values(item)) stack.push([inner, depth + 1]);
  }
  return false;
}

/** The value, or an error the model sees when it nests too deep for the rest of the turn to handle. */
function shallow(value: unknown): unknown {
  if (nestsDeeper(value, MAX_RESULT_DEPTH))
    throw new Error(`The MCP tool's structured result nests deeper than ${MAX_RESULT_DEPTH} levels; it was not read.`);
  return value;
}

const base64Bytes = (data: unknown): number => (typeof data === "string" ? Math.floor((data.length * 3) / 4) : 0);
const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** A short stand-in for a block the model cannot read as text. */
function blockText(block: McpContentBlock): string {
  switch (block.type) {
    case "text":
      return str(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${str(block.mimeType) || "unknown type"}, ${base64Bytes(block.data)} bytes, not shown]`;
    case "resource_link":
      return `[resource link: ${str(block.uri)}${block.name ? ` (${str(block.name)})` : ""}]`;
    case "resource": {
      const resource = block.resource ?? {};
      if (typeof resource.text === "string") return resource.text;
      return `[resource ${str(resource.uri)}: ${str(resource.mimeType) || "binary"}, ${base64Bytes(resource.blob)} bytes, not shown]`;
    }
    default:
      return `[${String(block.type)} content, not shown]`;
  }
}

/** The result's content blocks Agentry can read (objects with a string `type`). */
function blocksOf(result: McpCallResult): McpContentBlock[] {
  const blocks = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  return blocks.filter(
    (block): block is McpContentBlock =>
      typeof block === "object" && block !== null && typeof (block as { type?: unknown }).type === "string",
  );
}

/** The result's content blocks as one text: text parts joined by newlines, other parts as short descriptions. */
export function mcpResultText(result: McpCallResult): string {
  return blocksOf(result).map(blockText).join("\n");
}

/**
 * A block as a part of a tool result the model reads: an image or audio block (or an embedded
 * resource holding an image or audio `blob`) as a media part, anything else as its text.
 */
export function mcpContentPart(block: McpContentBlock): ToolResultContentPart {
  if ((block.type === "image" || block.type === "audio") && typeof block.data === "string")
    return { type: block.type, mediaType: str(block.mimeType), data: block.data };
  const resource = block.resource;
  if (block.type === "resource" && typeof resource?.blob === "string" && typeof resource.mimeType === "string") {
    const kind = /^image\//i.test(resource.mimeType)
      ? "image"
      : /^audio\//i.test(resource.mimeType)
        ? "audio"
        : undefined;
    if (kind !== undefined) return { type: kind, mediaType: resource.mimeType, data: resource.blob };
  }
  return { type: "text", text: blockText(block) };
}

/**
 * An MCP tool result as an Agentry tool value: `structuredContent` when the server sent it; else,
 * when the content holds images or audio (blocks, or embedded resources with an image or audio
 * `blob`), a `ToolResultContent` whose media parts the model sees as images where its provider
 * takes them (bounded: see `ToolResultContent`); else the content as text (text parts joined,
 * resource links and other binary resources described in one line; the loop caps its size like any result). `isError: true` throws
 * an `Error` with the text (at most 8,000 characters), so the loop records an error result the
 * model can act on; so does a `structuredContent` nested deeper than 64 levels (`MAX_RESULT_DEPTH`).
 */
export function mapMcpResult(result: McpCallResult): unknown {
  if (result.isError === true) {
    const text = mcpResultText(result);
    throw new Error(
      text === ""
        ? "The MCP tool reported an error without a message."
        : text.length > MAX_ERROR_CHARS
          ? `${text.slice(0, MAX_ERROR_CHARS)}…[truncated]`
          : text,
    );
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return shallow(result.structuredContent);
  if (result.content === undefined && result.toolResult !== undefined) return shallow(result.toolResult);
  const parts = blocksOf(result).map(mcpContentPart);
  if (!parts.some((part) => part.type !== "text"))
    return parts.map((part) => (part.type === "text" ? part.text : "")).join("\n");
  // Checked here too (the loop checks again): a server's 30 MB image is a note from the start.
  return boundToolResultContent({ type: "content", parts });
}

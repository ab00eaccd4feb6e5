import type { ToolResultContentPart } from "../contracts/message.js";

/** A resource a server offers (`resources/list`), its texts copied and bounded (see `MCP_LIST_LIMITS`). */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, when the server says. */
  size?: number;
}

/** One item of a resource's contents (`resources/read`): text, or binary as base64 `blob`. */
export type McpResourceContents =
  { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };

/** An argument a prompt takes. */
export interface McpPromptArgument {
  name: string;
  description?: string;
  /** @default false */
  required: boolean;
}

/** A prompt (template) a server offers (`prompts/list`). */
export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments: McpPromptArgument[];
}

/**
 * One message of a prompt: its content as a part Agentry messages hold (text, or an image or
 * audio part; an embedded resource as its text, a resource link as a one-line note), media
 * bounded like tool results' (`ToolResultContent`).
 */
export interface McpPromptMessage {
  role: "user" | "assistant";
  content: ToolResultContentPart;
}

/** A prompt filled in (`prompts/get`). */
export interface McpPromptResult {
  description?: string;
  messages: McpPromptMessage[];
}

/**
 * The parts of the AI SDK language model specification (`@ai-sdk/provider`, versions 2, 3 and 4)
 * that `fromAiSdk` uses, written out structurally. Declaring them here instead of importing them
 * keeps the published types independent of which `@ai-sdk/provider` major the application has:
 * a `LanguageModelV2`, `LanguageModelV3` or `LanguageModelV4` from any of them is assignable
 * (tests/ai-sdk/from-ai-sdk.test-d.ts proves it against the real packages).
 */

/** The specification versions `fromAiSdk` understands. */
export type AiSdkSpecificationVersion = "v2" | "v3" | "v4";

/** One prompt message, as every supported version accepts it (file data differs, see `AiSdkFilePart`). */
export type AiSdkMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: (AiSdkTextPart | AiSdkFilePart)[] }
  | { role: "assistant"; content: (AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart)[] }
  | { role: "tool"; content: AiSdkToolResultPart[] };

/** Provider-specific options, keyed by the provider's name (`{ anthropic: { ... } }`). */
export type AiSdkProviderOptions = Record<string, Record<string, any>>;

export interface AiSdkTextPart {
  type: "text";
  text: string;
}
/**
 * V2 and V3 take base64 text, bytes or a URL as `data`; V4 takes `{ type: "data", data }`,
 * `{ type: "url", url }` or `{ type: "reference", reference }` (a provider's file id by provider name).
 */
export interface AiSdkFilePart {
  type: "file";
  mediaType: string;
  filename?: string;
  data:
    | string
    | Uint8Array
    | URL
    | { type: "data"; data: string | Uint8Array }
    | { type: "url"; url: URL }
    | { type: "reference"; reference: Record<string, string> };
}
export interface AiSdkReasoningPart {
  type: "reasoning";
  text: string;
  providerOptions?: AiSdkProviderOptions;
}
export interface AiSdkToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
}
export interface AiSdkToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output:
    | { type: "text" | "error-text"; value: string }
    | { type: "json"; value: any }
    | { type: "content"; value: AiSdkToolResultContentPart[] };
}
/**
 * A part of a tool result's `content` output: text, or media as each version takes it (V2
 * `media`; V3 `image-data` for images, `file-data` otherwise; V4 `file` with `{ type: "data" }`).
 */
export type AiSdkToolResultContentPart =
  | AiSdkTextPart
  | { type: "media" | "image-data" | "file-data"; data: string; mediaType: string }
  | { type: "file"; data: { type: "data"; data: string }; mediaType: string };

/** The call options `fromAiSdk` sends (a subset every version accepts). */
export interface AiSdkCallOptions {
  prompt: AiSdkMessage[];
  tools?: { type: "function"; name: string; description?: string; inputSchema: any }[];
  toolChoice?: AiSdkToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  providerOptions?: AiSdkProviderOptions;
  abortSignal?: AbortSignal;
  headers?: Record<string, string | undefined>;
}

/** Whether and which tool the model must call, as every supported version takes it. */
export type AiSdkToolChoice = { type: "auto" | "none" | "required" } | { type: "tool"; toolName: string };

/**
 * A stream part as read at run time. Parts are checked by `type` and their fields read
 * defensively: a model is a third-party component, and what it streams is untrusted input.
 */
export interface AiSdkStreamPart {
  type: string;
  [field: string]: unknown;
}

/**
 * Any AI SDK language model of specification V2, V3 or V4 (`LanguageModelV2 | LanguageModelV3 |
 * LanguageModelV4` from `@ai-sdk/provider`), e.g. `openai("gpt-4o")` from `@ai-sdk/openai`, or
 * `createOpenAICompatible(...)("llama3")`.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: AiSdkSpecificationVersion;
  readonly provider: string;
  readonly modelId: string;
  doStream(options: never): PromiseLike<{ stream: ReadableStream<any> }>;
}

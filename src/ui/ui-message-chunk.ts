/** JSON a chunk may carry. */
export type UiJsonValue = null | string | number | boolean | UiJsonValue[] | { [key: string]: UiJsonValue };

/** Where a tool part sits in the sub-task tree (the AI SDK's `toolMetadata`). */
export interface UiToolMetadata {
  [key: string]: UiJsonValue;
  /** 0 at the root. */
  depth: number;
  /** `toolCallId` of the enclosing `run_subtask`; null at the root. */
  parentId: string | null;
}

/**
 * The chunks of the AI SDK UI message stream protocol (`ai` v6 `UIMessageChunk`) that
 * `toUIMessageStream` writes. Declared here so that `@agentry/core/ui` needs no `ai` install.
 * Agentry-specific parts are `data-agentry-*` chunks (see `toUIMessageStream`).
 */
export type UiMessageChunk =
  | { type: "start"; messageId?: string; messageMetadata?: Record<string, UiJsonValue> }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | {
      /** A call whose arguments stream (`tool_input_delta`): its part, in state `input-streaming`. */
      type: "tool-input-start";
      toolCallId: string;
      toolName: string;
      /** Absent on a client tool's call (a static `tool-<name>` part, run by `useChat`'s `onToolCall`). */
      dynamic?: true;
      toolMetadata: UiToolMetadata;
    }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | {
      /** A streamed call the model never completed (the response was cut off or failed). */
      type: "tool-input-error";
      toolCallId: string;
      toolName: string;
      input: unknown;
      errorText: string;
      /** Absent on a client tool's call (a static `tool-<name>` part, run by `useChat`'s `onToolCall`). */
      dynamic?: true;
      toolMetadata: UiToolMetadata;
    }
  | {
      type: "tool-input-available";
      toolCallId: string;
      toolName: string;
      input: unknown;
      /** Absent on a client tool's call (a static `tool-<name>` part, run by `useChat`'s `onToolCall`). */
      dynamic?: true;
      title?: string;
      toolMetadata: UiToolMetadata;
    }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | {
      type: "tool-output-available";
      toolCallId: string;
      output: unknown;
      /** Absent on a client tool's call (a static `tool-<name>` part, run by `useChat`'s `onToolCall`). */
      dynamic?: true;
      toolMetadata: UiToolMetadata;
      /** A preliminary result of a call still running (a `tool_progress` event); the last output is final. */
      preliminary?: true;
    }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic?: true; toolMetadata: UiToolMetadata }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: `data-agentry-${string}`; id?: string; data: unknown; transient?: boolean }
  | { type: "error"; errorText: string }
  | { type: "abort"; reason?: string }
  | {
      type: "finish";
      finishReason?: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";
      messageMetadata?: Record<string, UiJsonValue>;
    };

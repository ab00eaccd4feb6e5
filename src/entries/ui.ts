/**
 * `@agentry/core/ui`: Agentry runtime events as the protocols front ends already speak: the AI
 * SDK's UI message stream (so `useChat` renders an Agentry runtime, and `createChatHandler` answers
 * everything `useChat` sends), AG-UI 1.0 events, and the
 * task / agent / tool / log / artifact event catalogue of a task-management UI (`toTaskEvents`).
 * No runtime dependencies: the protocols' own packages are needed only to consume the output.
 *
 * @module \@agentry/core/ui
 */

// >>> ui block
export {
  createUIMessageTranslator,
  toUIMessageSseStream,
  toUIMessageStream,
  toUIMessageStreamResponse,
  UI_MESSAGE_STREAM_HEADERS,
} from "../ui/to-ui-message-stream.js";
export type { UIMessageStreamOptions } from "../ui/to-ui-message-stream.js";
export type { UiJsonValue, UiMessageChunk, UiToolMetadata } from "../ui/ui-message-chunk.js";
export { MASKED_ERROR_TEXT } from "../ui/ui-errors.js";
export { createChatHandler, DEFAULT_MAX_CHAT_BODY_BYTES } from "../ui/create-chat-handler.js";
export type { ChatHandlerOptions, ChatRouteInfo, RouteTarget } from "../ui/create-chat-handler.js";
export type { UiErrorHandler, UiErrorInfo } from "../ui/ui-errors.js";
export { createAgUiTranslator, toAgUiEvents } from "../ui/to-ag-ui-events.js";
export type {
  AgUiAgentState,
  AgUiEvent,
  AgUiEventsOptions,
  AgUiEventType,
  AgUiInterrupt,
} from "../ui/to-ag-ui-events.js";
export { createTaskEventTranslator, toTaskEvents } from "../ui/to-task-events.js";
export type { TaskEventTranslator } from "../ui/to-task-events.js";
export type {
  TaskEvent,
  TaskEventLabels,
  TaskEventPayloads,
  TaskEventType,
  TaskLogFields,
  TaskLogType,
} from "../ui/task-event.js";
// <<< ui block

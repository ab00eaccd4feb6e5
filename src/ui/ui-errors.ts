/**
 * An error a UI translator is about to send to the client: a tool call's error result, the
 * turn's error, or a failure of the event stream itself. Its text may hold what a tool, a
 * provider or the host's code said (paths, ids, a stack trace): the translators send what the
 * host's `onError` makes of it, {@link MASKED_ERROR_TEXT} by default.
 */
export interface UiErrorInfo {
  kind: "tool" | "turn" | "stream";
  /** The error text as Agentry has it. */
  message: string;
  /** For a tool call's error: the call and its tool. */
  toolCallId?: string;
  name?: string;
  /** A code, when the error has one (a provider's error type, `hook_failed`, ...). */
  code?: string;
  /** 0 at the root; sub-tasks are deeper. */
  depth: number;
}

/** What a translator sends for an error: the text the client shows. */
export type UiErrorHandler = (error: UiErrorInfo) => string;

/** The text a client gets for an error unless the host's `onError` says otherwise (as the AI SDK does). */
export const MASKED_ERROR_TEXT = "An error occurred.";

/** The default `onError`: every error's text is masked. */
export const maskErrors: UiErrorHandler = () => MASKED_ERROR_TEXT;

/** `onError` applied so that a handler that throws or returns no text masks the error instead. */
export function errorTextOf(onError: UiErrorHandler, error: UiErrorInfo): string {
  try {
    const text = onError(error);
    return typeof text === "string" ? text : MASKED_ERROR_TEXT;
  } catch {
    return MASKED_ERROR_TEXT;
  }
}

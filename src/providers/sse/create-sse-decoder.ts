import { ProviderError } from "../../errors/errors.js";

/** One server-sent event: its `event:` name (when given) and its `data:` lines joined with `\n`. */
export interface SseEvent {
  /** The `event:` field; `undefined` when the event had none (the spec's default type "message"). */
  event: string | undefined;
  data: string;
  /** The `id:` field, when the event carried one. */
  id?: string;
}

/** An incremental SSE decoder over already-decoded text. */
export interface SseDecoder {
  /**
   * Feeds text (any split: mid-line, between `\r` and `\n`) and returns the events it completed.
   * Throws a `ProviderError` when the event being read grows over `maxEventBytes`.
   */
  push(text: string): SseEvent[];
  /** End of stream: completes a last line without a terminator and dispatches a pending event. */
  flush(): SseEvent[];
}

/** Options of {@link createSseDecoder}. */
export interface SseDecoderOptions {
  /**
   * The largest event accepted, counted in characters of its `data` (UTF-16 code units of the
   * decoded text: one per byte for ASCII, never more than the UTF-8 byte count). A line still
   * incomplete counts as it arrives, so an endless line fails as soon as it passes the limit.
   * `Infinity` turns the check off.
   * @default DEFAULT_MAX_EVENT_BYTES (16 MiB)
   */
  maxEventBytes?: number;
  /** The provider id put on the `ProviderError` for an oversized event. @default "sse" */
  provider?: string;
}

/** The default event size limit of the SSE decoder and the HTTP providers: 16 MiB. */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

/** `data: `: a data line's field name and its space are not part of the event's size. */
const DATA_PREFIX = 6;
/** Pieces of an unfinished line are joined by groups of this many while they are small. */
const GROUP = 1024;
/** ...of this many characters at most in all (larger pieces are kept as they are). */
const GROUP_CHARS = 1 << 20;

/**
 * A WHATWG-style `text/event-stream` decoder: `\n`, `\r\n` and `\r` line ends, comments (`:`),
 * one optional space after the colon, several `data:` lines joined with `\n`, fields in any order.
 *
 * Unlike a browser `EventSource`, `flush()` dispatches an event whose blank line never came, so a
 * server that closes the connection right after its last `data:` line is not cut short.
 *
 * Work is linear in the input: each piece is scanned for line ends once, and the start of a line
 * that spans pieces is kept as a list of pieces, joined once when the line ends.
 */
export function createSseDecoder(options: SseDecoderOptions = {}): SseDecoder {
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  /** The start of the current line, when it spans pieces. */
  let pending: string[] = [];
  let pendingLength = 0;
  /** Where the pieces not yet considered for grouping start in `pending`, and their length. */
  let groupStart = 0;
  let groupLength = 0;
  let skipLeadingLf = false;
  let started = false;
  let eventName: string | undefined;
  let data: string[] = [];
  /** The current event's data size so far: its lines plus the `\n`s that will join them. */
  let dataLength = 0;
  let id: string | undefined;

  const tooLarge = (size: number) => eventTooLarge(maxEventBytes, size, options.provider ?? "sse");

  const dispatch = (out: SseEvent[]) => {
    if (data.length > 0) {
      const event: SseEvent = { event: eventName, data: data.length === 1 ? data[0]! : data.join("\n") };
      if (id !== undefined) event.id = id;
      out.push(event);
    }
    eventName = undefined;
    data = [];
    dataLength = 0;
    id = undefined;
  };

  const line = (text: string, out: SseEvent[]) => {
    if (text === "") return dispatch(out);
    const colon = text.indexOf(":");
    if (colon === 0) return; // comment / keep-alive
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "data") {
      dataLength += value.length + (data.length > 0 ? 1 : 0);
      if (dataLength > maxEventBytes) throw tooLarge(dataLength);
      data.push(value);
    } else if (field === "event") eventName = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    // `retry:` and unknown fields are ignored: we never reconnect.
  };

  const clearPending = () => {
    pending = [];
    pendingLength = 0;
    groupStart = 0;
    groupLength = 0;
  };

  /** Completes the current line with `text[start, end)`. */
  const endLine = (text: string, start: number, end: number, out: SseEvent[]) => {
    if (pending.length === 0) return line(text.slice(start, end), out);
    pending.push(text.slice(start, end));
    const whole = pending.join("");
    clearPending();
    line(whole, out);
  };

  /**
   * Keeps the unfinished start of a line. Tiny pieces (a server trickling bytes) are joined by groups, so the list
   * stays short.
   */
  const keep = (piece: string) => {
    pending.push(piece);
    pendingLength += piece.length;
    groupLength += piece.length;
    if (pending.length - groupStart >= GROUP) {
      if (groupLength <= GROUP_CHARS) pending.push(pending.splice(groupStart).join(""));
      groupStart = pending.length;
      groupLength = 0;
    }
  };

  return {
    push(text) {
      const out: SseEvent[] = [];
      if (text === "") return out;
      if (!started) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (skipLeadingLf) {
        skipLeadingLf = false;
        if (text.charCodeAt(0) === 10) text = text.slice(1);
      }
      // Only `text` is scanned: the pending start of a line was scanned when it arrived.
      let start = 0;
      const scan = { cr: text.indexOf("\r"), end: 0, next: 0 };
      while (nextLineEnd(text, start, scan)) {
        // A `\r` at the very end: its `\n` may come in the next piece.
        if (scan.end === text.length - 1 && scan.next === text.length && text.charCodeAt(scan.end) === 13)
          skipLeadingLf = true;
        endLine(text, start, scan.end, out);
        start = scan.next;
      }
      if (start < text.length) {
        keep(start === 0 ? text : text.slice(start));
        // An unfinished line counts toward the event now, so an endless one cannot grow unbounded.
        const size = dataLength + (data.length > 0 ? 1 : 0) + pendingLength - DATA_PREFIX;
        if (size > maxEventBytes) throw tooLarge(size);
      }
      return out;
    },
    flush() {
      const out: SseEvent[] = [];
      if (pending.length > 0) {
        const whole = pending.join("");
        clearPending();
        line(whole, out);
      }
      dispatch(out);
      return out;
    },
  };
}

/** The error for an event that grew over `maxEventBytes` (`size` characters and counting). */
function eventTooLarge(maxEventBytes: number, size: number, provider: string): ProviderError {
  return new ProviderError(
    `A server-sent event exceeded maxEventBytes (${maxEventBytes}): at least ${size} characters without an end. ` +
      `Raise the provider's maxEventBytes option if such large events are expected.`,
    { provider, retryable: false, errorType: "event_too_large" },
  );
}

/**
 * Finds the next line end in `text` from `start` (`\n`, `\r\n` or `\r`): sets `scan.end` (where the
 * line ends) and `scan.next` (where the next line starts) and returns true, or false when the
 * rest is an unfinished line. `scan.cr` caches the next `\r` so every character is looked at once.
 */
function nextLineEnd(text: string, start: number, scan: { cr: number; end: number; next: number }): boolean {
  const lf = text.indexOf("\n", start);
  if (scan.cr !== -1 && scan.cr < start) scan.cr = text.indexOf("\r", start);
  const cr = scan.cr;
  if (cr !== -1 && (lf === -1 || cr < lf)) {
    scan.end = cr;
    scan.next = cr + 1 === text.length || text.charCodeAt(cr + 1) !== 10 ? cr + 1 : cr + 2;
    return true;
  }
  if (lf === -1) return false;
  scan.end = lf;
  scan.next = lf + 1;
  return true;
}

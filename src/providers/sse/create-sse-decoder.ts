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
  /** Feeds text (any split: mid-line, between `\r` and `\n`) and returns the events it completed. */
  push(text: string): SseEvent[];
  /** End of stream: completes a last line without a terminator and dispatches a pending event. */
  flush(): SseEvent[];
}

/**
 * A WHATWG-style `text/event-stream` decoder: `\n`, `\r\n` and `\r` line ends, comments (`:`),
 * one optional space after the colon, several `data:` lines joined with `\n`, fields in any order.
 *
 * Unlike a browser `EventSource`, `flush()` dispatches an event whose blank line never came, so a
 * server that closes the connection right after its last `data:` line is not cut short.
 */
export function createSseDecoder(): SseDecoder {
  let buffer = "";
  let skipLeadingLf = false;
  let started = false;
  let eventName: string | undefined;
  let data: string[] = [];
  let id: string | undefined;

  const dispatch = (out: SseEvent[]) => {
    if (data.length > 0) {
      const event: SseEvent = { event: eventName, data: data.length === 1 ? data[0]! : data.join("\n") };
      if (id !== undefined) event.id = id;
      out.push(event);
    }
    eventName = undefined;
    data = [];
    id = undefined;
  };

  const line = (text: string, out: SseEvent[]) => {
    if (text === "") return dispatch(out);
    const colon = text.indexOf(":");
    if (colon === 0) return; // comment / keep-alive
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") eventName = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    // `retry:` and unknown fields are ignored: we never reconnect.
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
      buffer = buffer === "" ? text : buffer + text;
      let start = 0;
      let cr = buffer.indexOf("\r");
      for (;;) {
        const lf = buffer.indexOf("\n", start);
        if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
        let end: number;
        let next: number;
        if (cr !== -1 && (lf === -1 || cr < lf)) {
          end = cr;
          if (cr + 1 === buffer.length) {
            // A `\r` at the very end: its `\n` may come in the next piece.
            skipLeadingLf = true;
            next = cr + 1;
          } else next = buffer.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else if (lf !== -1) {
          end = lf;
          next = lf + 1;
        } else break;
        line(buffer.slice(start, end), out);
        start = next;
      }
      buffer = start === 0 ? buffer : buffer.slice(start);
      return out;
    },
    flush() {
      const out: SseEvent[] = [];
      if (buffer !== "") line(buffer, out);
      buffer = "";
      dispatch(out);
      return out;
    },
  };
}

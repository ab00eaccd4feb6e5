/** The last characters written to a stream (a server's stderr), for error messages. */
export interface TextTail {
  push(text: string): void;
  text(): string;
}

/** Keeps at most `maxChars` of what was pushed: the end, where the reason for an exit usually is. */
export function createTextTail(maxChars: number): TextTail {
  let kept = "";
  return {
    push(text) {
      kept = (kept + text).slice(-maxChars);
    },
    text: () => kept.trim(),
  };
}

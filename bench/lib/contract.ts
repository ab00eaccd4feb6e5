/**
 * What every SDK module in `bench/sdks/` implements, and the fixed sizes of the scenarios.
 *
 * Each method runs one complete scenario once and checks its own outcome (a wrong answer throws,
 * so a broken adapter can never post a fast number). The harness does the timing.
 */

/** 50-step echo loop: the model calls `echo` this many times minus one, then answers. */
export const ECHO_STEPS = 50;
/** Parallel fan-out: tool calls in one model turn, and how long each tool sleeps. */
export const FANOUT_CALLS = 32;
export const FANOUT_SLEEP_MS = 10;
/** Streaming: text deltas in one model turn. */
export const STREAM_DELTAS = 10_000;
/** The text of every streamed delta (4 characters, about one token). */
export const DELTA_TEXT = "tok ";
/** Memory: sessions held at once, and messages per session (alternating user / assistant). */
export const SESSIONS = 1_000;
export const MESSAGES_PER_SESSION = 20;
/** The final answer every scripted conversation ends with. */
export const FINAL_TEXT = "done";

export type EchoMode = "events" | "result";

export interface BenchSdk {
  /** Column name in the results table. */
  name: string;
  /** Module specifier imported by the cold-import probe (null: nothing to import, the floor). */
  coldImport: string | null;
  /**
   * One 50-step echo-tool loop. `events`: consume every event the SDK streams;
   * `result`: await only the final result through the SDK's non-streaming path.
   */
  echoLoop(mode: EchoMode): Promise<void>;
  /** One model turn with {@link FANOUT_CALLS} tool calls sleeping {@link FANOUT_SLEEP_MS}, then a final answer. */
  fanOut(): Promise<void>;
  /** One model turn streaming {@link STREAM_DELTAS} text deltas, every event consumed. */
  streamDeltas(): Promise<void>;
  /** Builds `sessions` × {@link MESSAGES_PER_SESSION} messages in the SDK's own representation; returns the holder. */
  buildSessions(sessions: number): Promise<unknown>;
}

/** Text of message `index` of session `session`; the same strings for every SDK. */
export function sessionText(session: number, index: number): string {
  return index % 2 === 0
    ? `User message ${index} of session ${session}: please summarise the open tickets.`
    : `Assistant reply ${index} of session ${session}: there are three open tickets.`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Throws when a scenario ended with the wrong outcome. */
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`bench check failed: ${message}`);
}

import { AgentryError } from "../../errors/agentry-error.js";

/**
 * A replayed run asked for something the cassette did not record: no file, no recording matches
 * the request, or the recording ran out. The message names the cassette, the request, what
 * changed against the closest recording, and how to record again.
 */
export class CassetteMismatchError extends AgentryError {
  static override readonly errorName: string = "CassetteMismatchError";
  /** The cassette file. */
  readonly path: string;
  /** The request's index among the calls this provider served (0-based). */
  readonly callIndex: number;
  /** What changed against the closest recording, one line each (recorded → now); empty when there is none. */
  readonly differences: string[];

  constructor(init: { path: string; callIndex: number; differences: string[]; message: string }) {
    super(init.message);
    this.path = init.path;
    this.callIndex = init.callIndex;
    this.differences = init.differences;
  }
}

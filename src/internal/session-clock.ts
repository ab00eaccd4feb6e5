/** One tick of a {@link SessionClock}: an ISO timestamp and a strictly increasing order key. */
export interface SessionTick {
  /** ISO timestamp with millisecond precision, never earlier than any previous tick's. */
  iso: string;
  /** Microsecond-scaled logical time: strictly increasing per clock. Sorts sessions on ties. */
  order: number;
}

/**
 * A hybrid logical clock for session stores: `order` is `Date.now() * 1000` unless that would not
 * advance, in which case it is the last order + 1. So two touches in the same millisecond (or after
 * the wall clock stepped back) still sort correctly, and `iso` (derived from `order`) never goes
 * backwards. Drift from the wall clock only builds up past 1,000 ticks per millisecond.
 */
export class SessionClock {
  #last = 0;
  #isoMs = Number.NaN;
  #iso = "";

  /** The next tick. Ticks within one millisecond share one `iso` string (records hold it: less memory). */
  tick(): SessionTick {
    this.#last = Math.max(Date.now() * 1000, this.#last + 1);
    const ms = Math.floor(this.#last / 1000);
    if (ms !== this.#isoMs) {
      this.#isoMs = ms;
      this.#iso = new Date(ms).toISOString();
    }
    return { order: this.#last, iso: this.#iso };
  }

  /** Moves the clock past an order key seen elsewhere (another process, another store instance). */
  observe(order: number): void {
    if (Number.isFinite(order) && order > this.#last) this.#last = order;
  }
}

/** The order key of a timestamp written without one (files from elsewhere, old formats). */
export function orderFromIso(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms * 1000 : 0;
}

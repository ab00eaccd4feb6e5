/** The longest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** A clock that runs only while we wait for the server (see {@link createIdleTimer}). */
export interface IdleTimer {
  /** Starts the clock from zero: call before each wait for the server. */
  arm(): void;
  /** Stops the clock: call when the server answered (or the wait ended otherwise). */
  disarm(): void;
  /** True once the timeout fired. */
  readonly fired: boolean;
}

/**
 * A timer that calls `onTimeout` (once) when one wait for the server, from `arm()` to `disarm()`,
 * lasts `timeoutMs`. Time the consumer spends between reads is not counted. `timeoutMs` of 0,
 * `Infinity` or more than 2^31 - 1 turns it off (never "fire at once", as `setTimeout` would do).
 */
export function createIdleTimer(init: { timeoutMs: number; onTimeout: () => void }): IdleTimer {
  const { timeoutMs } = init;
  const off = !(timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fired = false;
  const fire = () => {
    timer = undefined;
    fired = true;
    init.onTimeout();
  };
  return {
    arm() {
      if (off || fired) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(fire, timeoutMs);
    },
    disarm() {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
    },
    get fired() {
      return fired;
    },
  };
}

/** The longest delay `setTimeout` can wait: longer ones (and `Infinity`) fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A time limit as a `setTimeout` delay, or `undefined` for "no limit": unset, `Infinity`, or
 * above {@link MAX_TIMER_MS} (about 24.8 days), which a timer cannot wait and would fire at once.
 * Check values with {@link isTimeLimit} first: a negative or NaN limit is a configuration error.
 */
export function timerDelay(ms: number | undefined): number | undefined {
  return ms === undefined || !(ms <= MAX_TIMER_MS) ? undefined : ms;
}

/** Whether `ms` is a valid time limit: a number, not NaN, not negative (`Infinity` = no limit). */
export function isTimeLimit(ms: unknown): ms is number {
  return typeof ms === "number" && !Number.isNaN(ms) && ms >= 0;
}

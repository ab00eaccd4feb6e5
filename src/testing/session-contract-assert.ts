/** A failed conformance check. */
export class ContractViolation extends Error {
  override name = "ContractViolation";
}

/** A short JSON rendering for failure messages. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
}

/** Throws a {@link ContractViolation} unless `condition` holds. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ContractViolation(message);
}

/** `Object.is` equality. */
export function checkEqual(actual: unknown, expected: unknown, what: string): void {
  check(Object.is(actual, expected), `${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Structural equality of plain data; a property set to `undefined` counts as missing. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!deepEqual(left[key], right[key])) return false;
  return true;
}

/** Structural equality, see {@link deepEqual}. */
export function checkDeepEqual(actual: unknown, expected: unknown, what: string): void {
  check(deepEqual(actual, expected), `${what}:\n  expected ${show(expected)}\n  got      ${show(actual)}`);
}

/** Awaits `promise`, which must reject with an error `accepts` accepts; returns that error. */
export async function checkRejects(
  promise: Promise<unknown>,
  accepts: (error: unknown) => boolean,
  what: string,
): Promise<unknown> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    check(
      accepts(error),
      `${what}: rejected with the wrong error: ${error instanceof Error ? `${error.name}: ${error.message}` : show(error)}`,
    );
    return error;
  }
  throw new ContractViolation(`${what}: expected a rejection, resolved with ${show(value)}`);
}

/** True for an ISO 8601 timestamp `Date.parse` understands. */
export const isIsoTimestamp = (value: unknown): boolean =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(Date.parse(value));

/** Resolves after `ms` milliseconds. */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

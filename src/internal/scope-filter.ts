import { InvalidArgumentError } from "../errors/errors.js";
import { hasLoneSurrogate, LONE_SURROGATE_PROBLEM } from "./lone-surrogate.js";

/**
 * Which sessions a listing keeps, by scope:
 * - `any`: every session, scoped or not (neither `scope` nor `scopePrefix` given);
 * - `unscoped`: only sessions without a scope (`scope: null`);
 * - `exact`: sessions whose scope is `scope`;
 * - `prefix`: sessions that have a scope and whose scope starts with `prefix`, taken literally
 *   (no pattern characters); `""` keeps every scoped session and no unscoped one.
 */
export type ScopeFilter =
  { kind: "any" } | { kind: "unscoped" } | { kind: "exact"; scope: string } | { kind: "prefix"; prefix: string };

/** The scope fields of a listing query, as hosts pass them. */
export interface ScopeQuery {
  scope?: string | null | undefined;
  scopePrefix?: string | undefined;
}

/**
 * Checks `scope` / `scopePrefix` of a listing query and returns its filter. `scope` must be a
 * string (or `null` when `allowNull`), `scopePrefix` a string (`""` allowed); both at once is an
 * `InvalidArgumentError` naming `operation`.
 */
export function scopeFilterOf(operation: string, query: ScopeQuery, options: { allowNull: boolean }): ScopeFilter {
  const { scope, scopePrefix } = query;
  if (scopePrefix !== undefined && typeof scopePrefix !== "string")
    throw new InvalidArgumentError(`${operation}: scopePrefix must be a string when set`);
  if (scope !== undefined && !(typeof scope === "string" || (scope === null && options.allowNull))) {
    throw new InvalidArgumentError(
      `${operation}: scope must be a string${options.allowNull ? ", null" : ""} or omitted`,
    );
  }
  if (scope !== undefined && scopePrefix !== undefined)
    throw new InvalidArgumentError(`${operation}: give scope or scopePrefix, not both`);
  for (const [key, value] of [
    ["scope", scope],
    ["scopePrefix", scopePrefix],
  ] as const)
    if (typeof value === "string" && hasLoneSurrogate(value))
      throw new InvalidArgumentError(`${operation}: ${key} ${LONE_SURROGATE_PROBLEM}`);
  if (scopePrefix !== undefined) return { kind: "prefix", prefix: scopePrefix };
  if (scope === null) return { kind: "unscoped" };
  return scope === undefined ? { kind: "any" } : { kind: "exact", scope };
}

/**
 * Checks the tenant guard of a call that takes only an id (`{ scope }` a non-empty string, or
 * `{ scopePrefix }` a string; not both) and returns its filter; no guard keeps everything. A bad
 * guard is an `InvalidArgumentError` naming `operation`.
 */
export function tenantGuardFilter(operation: string, guard: unknown): ScopeFilter {
  if (guard === undefined) return { kind: "any" };
  if (typeof guard !== "object" || guard === null)
    throw new InvalidArgumentError(`${operation}: the tenant guard must be an object when given`);
  const { scope, scopePrefix } = guard as ScopeQuery;
  if (scope !== undefined && (typeof scope !== "string" || scope === ""))
    throw new InvalidArgumentError(`${operation}: scope must be a non-empty string when set`);
  return scopeFilterOf(operation, { scope, scopePrefix }, { allowNull: false });
}

/** Whether a session of scope `scope` (`undefined` = unscoped) passes `filter`. */
export function matchesScopeFilter(scope: string | undefined, filter: ScopeFilter): boolean {
  switch (filter.kind) {
    case "any":
      return true;
    case "unscoped":
      return scope === undefined;
    case "exact":
      return scope === filter.scope;
    case "prefix":
      return scope !== undefined && scope.startsWith(filter.prefix);
    default:
      return assertNever(filter);
  }
}

/**
 * The least string, in code point order (the order of UTF-8 bytes: SQLite's `BINARY` and
 * Postgres's `"C"` collations), that is greater than every string starting with `prefix`;
 * `undefined` when there is none (`prefix` is empty or all U+10FFFF). So `s` starts with `prefix`
 * exactly when `prefix <= s` and (no bound, or) `s < bound`: a prefix match as an index range.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  // Both drivers write a lone surrogate as U+FFFD (UTF-8 has no surrogates), so count it as one.
  const points = Array.from(prefix, (char) => {
    const point = char.codePointAt(0)!;
    return point >= 0xd800 && point <= 0xdfff ? 0xfffd : point;
  });
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return points.map((point) => String.fromCodePoint(point)).join("");
    }
  }
  return undefined;
}

function assertNever(value: never): never {
  throw new Error(`unexpected scope filter ${JSON.stringify(value)}`);
}

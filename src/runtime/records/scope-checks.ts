import { InvalidArgumentError } from "../../errors/errors.js";
import { hasLoneSurrogate, LONE_SURROGATE_PROBLEM } from "../../internal/lone-surrogate.js";
import { scopeFilterOf, type ScopeFilter, type ScopeQuery } from "../../internal/scope-filter.js";

/** Throws for a `scope` that is set but not a non-empty string. */
export function checkScope(operation: string, scope: unknown): void {
  if (scope !== undefined && (typeof scope !== "string" || scope === ""))
    throw new InvalidArgumentError(`${operation}: scope must be a non-empty string when set`);
  if (typeof scope === "string" && hasLoneSurrogate(scope))
    throw new InvalidArgumentError(`${operation}: scope ${LONE_SURROGATE_PROBLEM}`);
}

/**
 * Checks the tenant filter of a listing or lookup: `scope` a non-empty string, `scopePrefix` a
 * string (`""` = every scope), not both. Returns the filter.
 */
export function checkScopeQuery(
  operation: string,
  query: { scope?: unknown; scopePrefix?: unknown } | undefined,
): ScopeFilter {
  if (query === undefined) return { kind: "any" };
  if (typeof query !== "object" || query === null)
    throw new InvalidArgumentError(`${operation}: query must be an object when given`);
  checkScope(operation, query.scope);
  return scopeFilterOf(operation, query as ScopeQuery, { allowNull: false });
}

import { prefixUpperBound, type ScopeFilter } from "../internal/scope-filter.js";
import { toPgText as t } from "./postgres-text.js";

/**
 * The WHERE terms of a scope filter (on the escaped `scope` column), pushing their parameters.
 * A prefix is a range in code point order, the order of the "C" collation, which the scope-prefix
 * indexes use: `scope COLLATE "C" >= prefix AND scope COLLATE "C" < prefixUpperBound(prefix)`.
 */
export function scopeWhere(filter: ScopeFilter, params: unknown[]): string[] {
  switch (filter.kind) {
    case "any":
      return [];
    case "unscoped":
      return ["scope IS NULL"];
    case "exact":
      return [`scope = $${params.push(t(filter.scope))}`];
    case "prefix": {
      const prefix = t(filter.prefix);
      const upper = prefixUpperBound(prefix);
      const terms = [`scope COLLATE "C" >= $${params.push(prefix)}`];
      if (upper !== undefined) terms.push(`scope COLLATE "C" < $${params.push(upper)}`);
      return terms;
    }
    default:
      return assertNever(filter);
  }
}

/**
 * The ORDER BY key of a listing. For a scope prefix with an upper bound it is `column + 0`, which
 * no index provides: so the planner reads the prefix's range of the scope index and sorts it
 * (cost: the tenant's own rows) rather than walking every row in `column` order until the limit
 * is met (cost: every newer row of every tenant, when the tenant's rows are old).
 */
export function orderKey(column: "touch" | "ord", filter: ScopeFilter): string {
  return filter.kind === "prefix" && prefixUpperBound(t(filter.prefix)) !== undefined ? `${column} + 0` : column;
}

function assertNever(value: never): never {
  throw new Error(`unexpected scope filter ${JSON.stringify(value)}`);
}

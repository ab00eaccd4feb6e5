import { InvalidArgumentError, SessionNotFoundError } from "../../errors/errors.js";
import type { AuditRecord, HistoryRecord, SessionStore } from "../../contracts/session-store.js";
import type { AuditLogQuery } from "../../contracts/agent-runtime.js";
import { matchesScopeFilter } from "../../internal/scope-filter.js";
import { checkScopeQuery } from "../records/scope-checks.js";

/**
 * A session's audit records (one per tool call, see `AuditEntry`), oldest first, across resets.
 * Reads the session's log after `afterSeq` and keeps the `audit` records. Throws
 * `SessionNotFoundError` for an unknown session (or one outside `scope` / `scopePrefix`) and
 * `InvalidArgumentError` for a bad query.
 */
export async function readAuditLog(
  store: SessionStore,
  sessionId: string,
  query: AuditLogQuery = {},
): Promise<AuditRecord[]> {
  const problems: string[] = [];
  if (typeof sessionId !== "string" || sessionId === "") problems.push("sessionId must be a non-empty string");
  const { afterSeq, limit } = query;
  if (afterSeq !== undefined && !(Number.isInteger(afterSeq) && afterSeq >= 0))
    problems.push("afterSeq must be a whole number, 0 or more");
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0))
    problems.push("limit must be a whole number, 0 or more");
  if (problems.length > 0) throw new InvalidArgumentError(`auditLog: ${problems.join("; ")}`);
  const filter = checkScopeQuery("auditLog", query);
  const session = await store.getSession(sessionId);
  if (!session || !matchesScopeFilter(session.scope, filter))
    throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
  const records = await store.load(sessionId, afterSeq === undefined ? {} : { afterSeq });
  const audit = records.filter((record: HistoryRecord): record is AuditRecord => record.kind === "audit");
  return limit === undefined ? audit : audit.slice(0, limit);
}

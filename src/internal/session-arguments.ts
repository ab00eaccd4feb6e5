import { InvalidArgumentError, SessionNotFoundError } from "../errors/errors.js";
import type { ListPendingApprovalsQuery, SessionStore, SessionSummary } from "../contracts/session-store.js";
import { hasLoneSurrogate, LONE_SURROGATE_PROBLEM } from "./lone-surrogate.js";
import { toPlainJson } from "./plain-json.js";
import { matchesScopeFilter, scopeFilterOf, type ScopeFilter } from "./scope-filter.js";

/** The argument of {@link SessionStore.createSession}. */
export type CreateSessionInit = Parameters<SessionStore["createSession"]>[0];
/** The query of {@link SessionStore.listSessions}. */
export type ListSessionsQuery = NonNullable<Parameters<SessionStore["listSessions"]>[0]>;
/** The patch of {@link SessionStore.updateSession}. */
export type SessionPatch = Parameters<SessionStore["updateSession"]>[1];
/** The query of {@link SessionStore.listSessions}, checked: `limit` is `Infinity` when not given. */
export interface ListQuery {
  agentId: string | undefined;
  /** Which scopes are listed (`scope` and `scopePrefix` of the query). */
  scope: ScopeFilter;
  limit: number;
}

const PATCH_KEYS: readonly string[] = ["name", "pinnedAt", "attributes", "lastSnippet"];
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The error for an unknown session id. */
export function sessionNotFound(sessionId: string): SessionNotFoundError {
  return new SessionNotFoundError(`Session "${sessionId}" not found`, { sessionId });
}

/** Throws an {@link InvalidArgumentError} unless `sessionId` is a non-empty string without a lone surrogate. */
export function checkSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== "string" || sessionId === "")
    throw new InvalidArgumentError("sessionId: must be a non-empty string");
  if (hasLoneSurrogate(sessionId)) throw new InvalidArgumentError(`sessionId: ${LONE_SURROGATE_PROBLEM}`);
}

/**
 * Adds a problem for each field of `fields` that is a string holding a lone UTF-16 surrogate.
 * Every store refuses such text in a session's string fields (ids, scope, name, pin, snippet): a
 * UTF-8 column would keep U+FFFD in its place, and two tenants' scopes would become one string.
 * JSON payloads (attributes, records) keep it exactly instead.
 */
export function loneSurrogateProblems(fields: Record<string, unknown>, problems: string[]): void {
  for (const [key, value] of Object.entries(fields))
    if (typeof value === "string" && hasLoneSurrogate(value)) problems.push(`${key}: ${LONE_SURROGATE_PROBLEM}`);
}

/** Checks a create request and builds the new summary (no `undefined` fields, attributes copied). */
export function newSessionSummary(init: CreateSessionInit, generatedId: () => string, now: string): SessionSummary {
  const problems: string[] = [];
  if (!isObject(init)) throw new InvalidArgumentError("createSession: init must be an object");
  if (typeof init.agentId !== "string" || init.agentId === "") problems.push("agentId: must be a non-empty string");
  if (init.sessionId !== undefined && (typeof init.sessionId !== "string" || init.sessionId === "")) {
    problems.push("sessionId: must be a non-empty string when set");
  }
  if (init.scope !== undefined && (typeof init.scope !== "string" || init.scope === ""))
    problems.push("scope: must be a non-empty string when set");
  if (init.name !== undefined && typeof init.name !== "string") problems.push("name: must be a string when set");
  if (init.attributes !== undefined && !isObject(init.attributes))
    problems.push("attributes: must be an object when set");
  const { agentId, sessionId, scope, name } = init;
  loneSurrogateProblems({ agentId, sessionId, scope, name }, problems);
  if (problems.length > 0) throw new InvalidArgumentError(`createSession: ${problems.join("; ")}`);
  const summary: SessionSummary = {
    sessionId: init.sessionId ?? generatedId(),
    agentId: init.agentId,
    createdAt: now,
    updatedAt: now,
  };
  if (init.scope !== undefined) summary.scope = init.scope;
  if (init.name !== undefined) summary.name = init.name;
  if (init.attributes !== undefined) summary.attributes = toPlainJson(init.attributes, "createSession: attributes");
  return summary;
}

/**
 * Applies a metadata patch to a copy of `summary` (`updatedAt` untouched). A key present with
 * `undefined` (or `null`) removes that field; `attributes` replaces the whole object.
 */
export function patchSessionSummary(summary: SessionSummary, patch: SessionPatch): SessionSummary {
  if (!isObject(patch)) throw new InvalidArgumentError("updateSession: patch must be an object");
  const problems: string[] = [];
  const next: SessionSummary = { ...summary };
  for (const [key, value] of Object.entries(patch)) {
    if (!PATCH_KEYS.includes(key)) {
      problems.push(`${key}: cannot be updated (only ${PATCH_KEYS.join(", ")})`);
    } else if (value === undefined || value === null) {
      delete next[key as keyof SessionPatch];
    } else if (key === "attributes") {
      if (isObject(value)) next.attributes = toPlainJson(value, "updateSession: attributes");
      else problems.push("attributes: must be an object");
    } else if (typeof value === "string") {
      if (hasLoneSurrogate(value)) problems.push(`${key}: ${LONE_SURROGATE_PROBLEM}`);
      else next[key as "name" | "pinnedAt" | "lastSnippet"] = value;
    } else {
      problems.push(`${key}: must be a string`);
    }
  }
  if (problems.length > 0) throw new InvalidArgumentError(`updateSession: ${problems.join("; ")}`);
  return next;
}

/** Checks a list query. */
export function checkListQuery(query: ListSessionsQuery = {}): ListQuery {
  if (!isObject(query)) throw new InvalidArgumentError("listSessions: query must be an object when given");
  const { agentId, limit } = query;
  if (agentId !== undefined && typeof agentId !== "string")
    throw new InvalidArgumentError("listSessions: agentId must be a string");
  if (agentId !== undefined && hasLoneSurrogate(agentId))
    throw new InvalidArgumentError(`listSessions: agentId ${LONE_SURROGATE_PROBLEM}`);
  const scope = scopeFilterOf("listSessions", query, { allowNull: true });
  return { agentId, scope, limit: checkLimit("listSessions", limit) };
}

/** A listing's `limit`, checked: a non-negative integer, `Infinity` when not given. */
export function checkLimit(operation: string, limit: unknown): number {
  if (limit !== undefined && (typeof limit !== "number" || !(limit >= 0) || !Number.isInteger(limit))) {
    throw new InvalidArgumentError(`${operation}: limit must be a non-negative integer`);
  }
  return limit ?? Number.POSITIVE_INFINITY;
}

/** The query of {@link ApprovalIndexStore.listPendingApprovals}, checked (`limit` is `Infinity` when not given). */
export interface PendingApprovalsQuery {
  sessionId: string | undefined;
  scope: ScopeFilter;
  limit: number;
}

/** Checks a `listPendingApprovals` query. */
export function checkPendingApprovalsQuery(query: ListPendingApprovalsQuery | undefined): PendingApprovalsQuery {
  if (query !== undefined && !isObject(query))
    throw new InvalidArgumentError("listPendingApprovals: query must be an object when given");
  const { sessionId, limit } = query ?? {};
  if (sessionId !== undefined && typeof sessionId !== "string")
    throw new InvalidArgumentError("listPendingApprovals: sessionId must be a string when set");
  if (sessionId !== undefined && hasLoneSurrogate(sessionId))
    throw new InvalidArgumentError(`listPendingApprovals: sessionId ${LONE_SURROGATE_PROBLEM}`);
  return {
    sessionId,
    scope: scopeFilterOf("listPendingApprovals", query ?? {}, { allowNull: true }),
    limit: checkLimit("listPendingApprovals", limit),
  };
}

/** Whether a session matches a checked list query's agent and scope filters. */
export function matchesListQuery(summary: SessionSummary, query: ListQuery): boolean {
  if (query.agentId !== undefined && summary.agentId !== query.agentId) return false;
  return matchesScopeFilter(summary.scope, query.scope);
}

/** Parses `prune`'s `olderThan` to epoch milliseconds. */
export function parseOlderThan(options: { olderThan: string }): number {
  const ms = isObject(options) && typeof options.olderThan === "string" ? Date.parse(options.olderThan) : Number.NaN;
  if (!Number.isFinite(ms)) throw new InvalidArgumentError("prune: olderThan must be an ISO timestamp");
  return ms;
}

import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { HistoryRecord, SessionSummary } from "../contracts/session-store.js";
import type { SessionListResponse, SessionRow, SessionState } from "./inspector-api-types.js";
import { sessionStates } from "./inspector-api-types.js";
import { InspectorHttpError } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { inScope, tenantGuard } from "./inspector-security.js";
import type { RedactHook } from "./inspector-options.js";
import { redactSessionRow } from "./redact-record.js";

/** Sessions read from the store for one listing at most (a page is cut from them). */
export const MAX_SCANNED_SESSIONS = 5000;
/** Sessions whose state is computed for one page at most (a state filter pages on past them). */
export const MAX_STATE_READS = 300;

/** What `api/sessions` takes. */
export interface SessionListQuery {
  state?: SessionState;
  agentId?: string;
  /** Narrows the caller's own prefix (never widens it). */
  scopePrefix?: string;
  q?: string;
  cursor?: string;
  limit: number;
}

/** Parses `api/sessions`' query string; a bad value is a 400. */
export function sessionListQuery(url: URL): Omit<SessionListQuery, "limit"> {
  const get = (name: string) => url.searchParams.get(name) ?? undefined;
  const state = get("state");
  if (state !== undefined && state !== "" && !sessionStates.includes(state as SessionState))
    throw new InspectorHttpError(400, "unknown state");
  const query: Omit<SessionListQuery, "limit"> = {};
  if (state) query.state = state as SessionState;
  for (const name of ["agentId", "scopePrefix", "q", "cursor"] as const) {
    const value = get(name);
    if (value !== undefined && value !== "") query[name] = value.slice(0, 500);
  }
  return query;
}

/** The session list: newest first, within the caller's scopes, paginated by a cursor on (updatedAt, id). */
export async function listSessionRows(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  query: SessionListQuery,
  states: TurnStates,
  redact: RedactHook | undefined,
): Promise<SessionListResponse> {
  const prefix = narrowedPrefix(identity, query.scopePrefix);
  const listed = await runtime.store.listSessions({
    ...(prefix === "" ? {} : { scopePrefix: prefix }),
    ...(query.agentId !== undefined && { agentId: query.agentId }),
    limit: MAX_SCANNED_SESSIONS,
  });
  const candidates = afterCursor(listed, query.cursor).filter(
    (s) => inScope(identity, s.scope) && matches(s, query.q, redact),
  );
  const waiting = await waitingSessions(runtime, identity);
  const items: SessionRow[] = [];
  let reads = 0;
  let last: SessionSummary | undefined;
  for (const session of candidates) {
    if (items.length >= query.limit || reads >= MAX_STATE_READS) break;
    reads++;
    last = session;
    const state = await states.stateOf(runtime, session, waiting);
    if (query.state === undefined || query.state === state) items.push(redactSessionRow(rowOf(session, state), redact));
  }
  const more = last !== undefined && candidates.indexOf(last) < candidates.length - 1;
  return more && last ? { items, nextCursor: cursorOf(last) } : { items };
}

/** The caller's prefix, narrowed by a requested one; a request outside it sees nothing (no widening). */
function narrowedPrefix(identity: InspectorIdentity, requested: string | undefined): string {
  if (requested === undefined || requested.startsWith(identity.scopePrefix)) return requested ?? identity.scopePrefix;
  // A request for a prefix outside the caller's: keep the caller's (narrowing to nothing would be a valid answer too).
  return identity.scopePrefix.startsWith(requested) ? identity.scopePrefix : "\u0000no-match";
}

/** Search over what the row shows: the snippet as redacted (a search must not reveal what redaction hides). */
function matches(session: SessionSummary, q: string | undefined, redact: RedactHook | undefined): boolean {
  if (q === undefined) return true;
  const needle = q.toLowerCase();
  const snippet = redactSessionRow(rowOf(session, "idle"), redact).lastSnippet;
  return [session.sessionId, session.name, snippet].some(
    (text) => text !== undefined && text.toLowerCase().includes(needle),
  );
}

/** A row of the list. */
export function rowOf(session: SessionSummary, state: SessionState): SessionRow {
  const row: SessionRow = {
    sessionId: session.sessionId,
    agentId: session.agentId,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    state,
  };
  if (session.scope !== undefined) row.scope = session.scope;
  if (session.name !== undefined) row.name = session.name;
  if (session.lastSnippet !== undefined) row.lastSnippet = session.lastSnippet;
  return row;
}

function cursorOf(session: SessionSummary): string {
  return btoa(JSON.stringify([session.updatedAt, session.sessionId])).replace(/=+$/, "");
}

/** The sessions after the cursor's, in list order (the cursor's session itself excluded). */
function afterCursor(sessions: SessionSummary[], cursor: string | undefined): SessionSummary[] {
  if (cursor === undefined) return sessions;
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor));
  } catch {
    throw new InspectorHttpError(400, "invalid cursor");
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== "string" || typeof parsed[1] !== "string")
    throw new InspectorHttpError(400, "invalid cursor");
  const [updatedAt, sessionId] = parsed as [string, string];
  const at = sessions.findIndex((s) => s.sessionId === sessionId);
  // The cursor's session moved (touched since): go on from its old place in time.
  if (at === -1 || sessions[at]!.updatedAt !== updatedAt) return sessions.filter((s) => s.updatedAt < updatedAt);
  return sessions.slice(at + 1);
}

/** Ids of the sessions with a pending approval or question, within the caller's scopes: one indexed query each. */
export async function waitingSessions(runtime: AgentRuntime, identity: InspectorIdentity): Promise<Set<string>> {
  const guard = tenantGuard(identity);
  const [approvals, questions] = await Promise.all([runtime.pendingApprovals(guard), runtime.pendingQuestions(guard)]);
  const ids = new Set<string>();
  for (const pending of [...approvals, ...questions]) {
    ids.add(pending.sessionId);
    for (const waiting of pending.chain ?? []) ids.add(waiting.sessionId);
  }
  return ids;
}

/** Sessions whose last turn state an inspector remembers (the least recently read are forgotten). */
const REMEMBERED_STATES = 10_000;

/**
 * The state of each session's last turn, kept per inspector: a session not updated since it was
 * last read costs nothing; one updated is read from where the last read stopped (`afterSeq`), so a
 * long session is read whole once.
 */
export class TurnStates {
  readonly #entries = new Map<string, { updatedAt: string; seq: number; state: SessionState }>();

  /** A session's state from its last turn record and the pending decisions (`waiting`). */
  async stateOf(runtime: AgentRuntime, session: SessionSummary, waiting: Set<string>): Promise<SessionState> {
    if (waiting.has(session.sessionId)) return "waiting";
    const known = this.#entries.get(session.sessionId);
    this.#entries.delete(session.sessionId);
    let entry = known;
    if (!entry || entry.updatedAt !== session.updatedAt) {
      const records = await runtime.store.load(session.sessionId, {
        frame: null,
        ...(known && { afterSeq: known.seq }),
      });
      const last = records.at(-1);
      const hasTurn = records.some((r) => r.kind === "turn");
      entry = {
        updatedAt: session.updatedAt,
        seq: last?.seq ?? known?.seq ?? 0,
        state: hasTurn || !known ? stateOfRecords(records, false) : known.state,
      };
    }
    this.#entries.set(session.sessionId, entry);
    if (this.#entries.size > REMEMBERED_STATES) this.#entries.delete(this.#entries.keys().next().value!);
    return entry.state;
  }
}

/** The state the records of a session say (its last turn record decides). */
export function stateOfRecords(records: HistoryRecord[], waiting: boolean): SessionState {
  if (waiting) return "waiting";
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.kind !== "turn") continue;
    if (record.phase === "start") return "running";
    switch (record.status) {
      case "error":
        return "failed";
      case "budget_exceeded":
        return "budget_exceeded";
      case "suspended":
        return "waiting";
      default:
        return "idle";
    }
  }
  return "idle";
}

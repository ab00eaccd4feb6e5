import type { ApprovalRequest } from "../../contracts/loop-result.js";
import { isApprovalIndexStore } from "../../sessions/session-store.js";
import type { SessionStore, SessionSummary } from "../../contracts/session-store.js";
import type { PendingApproval, PendingQuery } from "../../contracts/agent-runtime.js";
import { matchesScopeFilter, scopeFilterOf } from "../../internal/scope-filter.js";
import type { SessionStateCache } from "./session-state-cache.js";
import { readFresh } from "./session-state-cache.js";
import { MAX_DELEGATION_DEPTH } from "../records/delegation-limits.js";

/** Marks a listed pending request that is a question (a symbol key: never in JSON). */
const QUESTION: unique symbol = Symbol("question");

/** A pending request as listed, marked when it is a question of the runtime's own `ask_user`. */
export type ListedRequest = PendingApproval & { [QUESTION]?: true };

/** Whether a listed pending request is a question (its record says so). */
export const isQuestion = (pending: ListedRequest): boolean => pending[QUESTION] === true;

/** What listing pending requests reads: the store (or its approval index) and the sessions' state. */
export interface PendingReader {
  store: SessionStore;
  states: SessionStateCache;
}

/**
 * Every pending approval request (questions included), from the index or by reading sessions.
 * What the store lists is filtered by scope again: a store written before `scopePrefix` existed
 * would ignore it and list every tenant's.
 */
async function listStoredPending(reader: Readonly<PendingReader>, query: PendingQuery): Promise<ListedRequest[]> {
  const { store } = reader;
  const filter = scopeFilterOf("listPending", query, { allowNull: false });
  if (isApprovalIndexStore(store)) {
    const entries = await store.listPendingApprovals({
      ...(query.sessionId !== undefined && { sessionId: query.sessionId }),
      ...(query.scope !== undefined && { scope: query.scope }),
      ...(query.scopePrefix !== undefined && { scopePrefix: query.scopePrefix }),
    });
    const kept =
      filter.kind === "prefix" ? entries.filter((entry) => matchesScopeFilter(entry.scope, filter)) : entries;
    return kept.map((entry) => ({
      requestId: entry.requestId,
      sessionId: entry.sessionId,
      agentId: entry.agentId,
      runId: entry.request.runId ?? "",
      request: entry.request.request,
      at: entry.request.at,
      ...(entry.request.question === true && { [QUESTION]: true as const }),
    }));
  }
  const { sessionId, scope, scopePrefix } = query;
  const sessions = (
    sessionId !== undefined
      ? [await store.getSession(sessionId)].filter((s): s is SessionSummary => s !== undefined)
      : await store.listSessions(scope !== undefined ? { scope } : scopePrefix !== undefined ? { scopePrefix } : {})
  ).filter((s) => matchesScopeFilter(s.scope, filter));
  const pending: ListedRequest[] = [];
  for (const session of sessions) {
    const state =
      sessionId !== undefined ? await reader.states.read(session) : await readFresh(store, session.sessionId);
    for (const record of state.pending) {
      pending.push({
        requestId: record.request.requestId,
        sessionId: session.sessionId,
        agentId: session.agentId,
        runId: record.runId ?? state.suspended?.runId ?? "",
        request: record.request,
        at: record.at,
        ...(record.question === true && { [QUESTION]: true as const }),
      });
    }
  }
  return pending;
}

/** Longest delegation chain followed when listing (chains are bounded by `maxDelegationDepth` anyway). */
const MAX_CHAIN = MAX_DELEGATION_DEPTH;

/**
 * Every pending approval request and question, as a person decides them: a call waiting on another
 * agent (`request.waitsOn`) is not listed itself; what it waits on is, with `chain` (the sessions
 * waiting on it, outermost first). With `sessionId`, the requests that session waits on at any
 * depth; by scope, each request once, with the chain of the listed sessions waiting on it.
 * `onStranded` is told of each session a listed call waits on that itself waits for nothing.
 */
export async function listPending(
  reader: Readonly<PendingReader>,
  query: PendingQuery,
  depth = 0,
  onStranded?: (sessionId: string) => void,
): Promise<ListedRequest[]> {
  const stored = await listStoredPending(reader, query);
  if (!stored.some((p) => p.request.waitsOn !== undefined)) return stored;
  if (query.sessionId !== undefined) {
    const out: ListedRequest[] = [];
    for (const pending of stored) {
      const waitsOn = pending.request.waitsOn;
      if (waitsOn === undefined) out.push(pending);
      else if (depth < MAX_CHAIN) {
        const link = { sessionId: pending.sessionId, agentId: pending.agentId };
        const inner = await listPending(reader, { sessionId: waitsOn.sessionId }, depth + 1, onStranded);
        // A call waiting on a session that waits for nothing: a step of the chain nobody took (yet).
        if (inner.length === 0) onStranded?.(waitsOn.sessionId);
        for (const request of inner) out.push({ ...request, chain: [link, ...(request.chain ?? [])] });
      }
    }
    return out;
  }
  const waiting = new Map<string, ListedRequest>();
  for (const pending of stored)
    if (pending.request.waitsOn !== undefined) waiting.set(pending.request.waitsOn.sessionId, pending);
  if (onStranded) {
    const asking = new Set(stored.map((pending) => pending.sessionId));
    for (const target of waiting.keys()) if (!asking.has(target)) onStranded(target);
  }
  return stored
    .filter((pending) => pending.request.waitsOn === undefined)
    .map((pending) => {
      const chain: { sessionId: string; agentId: string }[] = [];
      let at = pending.sessionId;
      for (let i = 0; i < MAX_CHAIN; i++) {
        const wait = waiting.get(at);
        if (!wait) break;
        chain.unshift({ sessionId: wait.sessionId, agentId: wait.agentId });
        at = wait.sessionId;
      }
      return chain.length > 0 ? { ...pending, chain } : pending;
    });
}

/**
 * `requests` (of a turn of `at` that suspended) as the host reports them: a call waiting on another
 * agent is replaced by the requests it waits on, each with its `origin` (where it was asked, and
 * the chain of sessions waiting on it, `at` first).
 */
export async function surfacedRequests(
  reader: Readonly<PendingReader>,
  requests: readonly ApprovalRequest[],
  at: { sessionId: string; agentId: string },
): Promise<{ request: ApprovalRequest; question: boolean }[]> {
  const out: { request: ApprovalRequest; question: boolean }[] = [];
  for (const request of requests) {
    if (request.waitsOn === undefined) {
      out.push({ request, question: false });
      continue;
    }
    for (const inner of await listPending(reader, { sessionId: request.waitsOn.sessionId })) {
      const origin = { sessionId: inner.sessionId, agentId: inner.agentId, chain: [at, ...(inner.chain ?? [])] };
      out.push({ request: { ...inner.request, origin }, question: isQuestion(inner) });
    }
  }
  return out;
}

import type { TurnResult } from "../../contracts/agent-runtime.js";
import { InvalidArgumentError } from "../../errors/errors.js";
import { danglingCalls, type SessionState } from "../records/session-state.js";
import type { TurnRequest } from "../records/turn-request.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { HeldLease } from "../session/session-lease.js";
import { storedTurnResult } from "../session/stored-turn-result.js";

/**
 * What a turn sent under a `runId` runs: its stored outcome when a turn of that id (or one of its
 * continuations) ended; when its process died mid-turn, a continuation `<runId>:retry-<n>`
 * without the message again (or, when the answer was stored and only the end record is missing,
 * that end record and the stored outcome); else the request as sent.
 */
export async function rerun(
  store: GuardedSessionStore,
  request: TurnRequest,
  state: SessionState,
  lease: HeldLease,
): Promise<{ result: TurnResult } | { input: TurnRequest["input"] | undefined; runId: string | undefined }> {
  const { session } = request;
  const runId = request.runId;
  if (runId === undefined) return { input: request.input, runId };
  const prior = priorRun(state.runs, runId);
  if (prior !== undefined && prior.status !== null)
    return { result: (await storedTurnResult(store, session, prior.runId, request.created))! };
  if (prior === undefined) {
    if (request.continueOnly)
      throw new InvalidArgumentError(`No turn "${runId}" to continue in session "${session.sessionId}"`);
    return { input: request.input, runId };
  }
  const last = state.history.at(-1);
  if (last?.role === "assistant" && danglingCalls(state.history).length === 0) {
    // The answer was stored; only the end record is missing.
    await store.append(
      session.sessionId,
      [{ id: `${prior.runId}:end`, frame: null, kind: "turn", runId: prior.runId, phase: "end", status: "complete" }],
      { leaseToken: lease.token },
    );
    return { result: (await storedTurnResult(store, session, prior.runId, request.created))! };
  }
  return { input: undefined, runId: `${runId}:retry-${prior.attempt + 1}` };
}

/**
 * The latest turn of `runId` or of its continuations (`<runId>:retry-<n>`) among the recent ones, with its continuation
 * number.
 */
export function priorRun(
  runs: Map<string, string | null>,
  runId: string,
): { runId: string; status: string | null; attempt: number } | undefined {
  let found: { runId: string; status: string | null; attempt: number } | undefined;
  const prefix = `${runId}:retry-`;
  for (const [id, status] of runs) {
    if (id === runId) found ??= { runId: id, status, attempt: 0 };
    else if (id.startsWith(prefix)) {
      const attempt = Number(id.slice(prefix.length));
      if (Number.isInteger(attempt) && attempt > (found?.attempt ?? -1)) found = { runId: id, status, attempt };
    }
  }
  return found;
}

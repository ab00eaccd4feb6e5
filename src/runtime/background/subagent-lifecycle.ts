import type { LoopEvent, SubagentStatus } from "../../contracts/loop-event.js";
import type { SessionStore, SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";

/**
 * A background agent's lifecycle, kept in its session's `attributes.lifecycle`:
 * `created → running → waiting_for_merge → completed | failed → closed`. `waiting_for_merge`: its
 * turn ended and the parent has not read the result yet; a further message to it runs it again
 * (`waiting_for_merge → running`). The parent merges with `close_background_agent`, which reads
 * the result, moves it to `completed` or `failed` (how its last turn ended) and then `closed`.
 */
export type { SubagentStatus };

const NEXT: Record<SubagentStatus, readonly SubagentStatus[]> = {
  created: ["running"],
  running: ["waiting_for_merge"],
  waiting_for_merge: ["running", "completed", "failed"],
  completed: ["closed"],
  failed: ["closed"],
  closed: [],
};

/** The lifecycle status of a background agent's session (undefined for other sessions and older ones). */
export function subagentStatusOf(session: SessionSummary): SubagentStatus | undefined {
  const value = session.attributes?.lifecycle;
  return typeof value === "string" && value in NEXT ? (value as SubagentStatus) : undefined;
}

/**
 * Moves a background agent's session to `to` when its lifecycle allows it (else nothing, and
 * `undefined`), storing `extra` attributes with it and emitting `subagent_status`.
 */
export async function moveSubagent(
  store: SessionStore,
  publish: (session: SessionSummary, event: LoopEvent) => void,
  sessionId: string,
  to: SubagentStatus,
  extra: Record<string, unknown> = {},
): Promise<SessionSummary | undefined> {
  const session = await store.getSession(sessionId);
  const from = session && subagentStatusOf(session);
  if (!session || from === undefined || !NEXT[from].includes(to)) return undefined;
  const updated = await store.updateSession(sessionId, {
    attributes: { ...session.attributes, lifecycle: to, ...extra },
  });
  const parentSessionId =
    typeof session.attributes?.parentSessionId === "string" ? session.attributes.parentSessionId : "";
  publish(updated, { type: "subagent_status", sessionId, parentSessionId, from, to, depth: 0, parentId: null });
  return updated;
}

/**
 * After a background agent's turn: `waiting_for_merge` unless it is suspended (it waits for a decision while running).
 */
export async function settleSubagentTurn(
  store: SessionStore,
  publish: (session: SessionSummary, event: LoopEvent) => void,
  result: TurnResult,
): Promise<void> {
  if (result.status === "suspended") return;
  await moveSubagent(store, publish, result.sessionId, "waiting_for_merge", { lastTurnStatus: result.status });
}

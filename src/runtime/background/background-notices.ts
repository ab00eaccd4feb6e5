import { systemMessage } from "../../messages/system-message.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { Lineage } from "../records/lineage.js";
import type { TurnStarter } from "../records/turn-request.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { EventPublisher } from "../events/event-publisher.js";
import { handOffTurn } from "../delegation/hand-off.js";
import type { TurnDispatch } from "../delegation/turn-dispatch.js";

/** What background notices need. */
export interface BackgroundNoticesDeps {
  store: GuardedSessionStore;
  registry: AgentRegistry;
  dispatch: TurnDispatch;
  events: Pick<EventPublisher, "report">;
}

/** Background agents' failure notices of one runtime. */
export interface BackgroundNotices {
  /**
   * Watches a background agent's turn: when it does not complete (an error status, a limit, or a
   * failure to run at all), its parent is told once (see {@link notifyParentOfEnd}), in a turn
   * `turns` starts.
   */
  watch(session: SessionSummary, lineage: Lineage, turn: Promise<TurnResult>, turns: TurnStarter): void;
}

/** The notices of a runtime (each session's parent is told at most once per process). */
export function createBackgroundNotices(deps: Readonly<BackgroundNoticesDeps>): BackgroundNotices {
  const notified = new Set<string>();
  const notify = (session: SessionSummary, lineage: Lineage, why: string, turns: TurnStarter) => {
    if (notified.has(session.sessionId)) return;
    notified.add(session.sessionId);
    notifyParentOfEnd(deps, turns, session, lineage, why);
  };
  return {
    watch(session, lineage, turn, turns) {
      turn.then(
        (result) => {
          if (result.status !== "complete" && result.status !== "suspended" && result.status !== "queued")
            notify(session, lineage, endReason(session, result), turns);
        },
        (error: unknown) =>
          notify(session, lineage, `failed: ${error instanceof Error ? error.message : String(error)}`, turns),
      );
    },
  };
}

/** Why a background agent's turn did not complete, as its parent is told. */
function endReason(session: SessionSummary, result: TurnResult): string {
  const { timeoutMs, deadlineAt } = session.attributes ?? {};
  // The turn's wall clock was cut to the deadline: reaching it means the time budget ran out.
  if (result.error?.reason === "wall_clock" && typeof deadlineAt === "number" && Date.now() >= deadlineAt) {
    return `was stopped: its time budget (timeoutMs ${String(timeoutMs)}) ran out. What it did so far is in its session.`;
  }
  const detail = result.error ? `: ${result.error.message}` : "";
  return result.status === "error" ? `failed${detail}` : `ended with status "${result.status}"${detail}`;
}

/**
 * Tells a background agent's parent that its run did not complete, unless it was told already
 * (the session's `failureNotified` attribute): a system message that runs a turn of the parent,
 * never across scopes. Nobody waits for it; a failure is reported (`background_notice_failed`).
 */
export function notifyParentOfEnd(
  deps: Readonly<BackgroundNoticesDeps>,
  turns: TurnStarter,
  session: SessionSummary,
  lineage: Lineage,
  why: string,
): void {
  const { store, registry } = deps;
  void (async () => {
    const current = await store.getSession(session.sessionId);
    if (!current || current.attributes?.failureNotified) return;
    const markNotified = () =>
      store.updateSession(session.sessionId, { attributes: { ...current.attributes, failureNotified: true } });
    const parentId = current.attributes?.parentSessionId;
    const parent = typeof parentId === "string" ? await store.getSession(parentId) : undefined;
    const parentAgent = parent && registry.get(parent.agentId);
    // Never across scopes, whatever the attributes say.
    if (!parent || !parentAgent || parent.scope !== current.scope) {
      await markNotified();
      return;
    }
    const text = `Background agent "${current.agentId}" (session ${current.sessionId}) ${why}`;
    const request = {
      agent: parentAgent,
      session: parent,
      input: systemMessage(current.agentId, text),
      chain: [],
      lineage: { counters: lineage.counters, hops: lineage.hops + 1 },
      // One notice per background session: its hand-off id says so, wherever it is made.
      key: [current.sessionId, "end_notice"],
    };
    if (deps.dispatch.current) {
      // Stored first, then marked: a process dying in between hands the same notice over again, which runs once.
      await handOffTurn(deps.dispatch, turns, request);
      await markNotified();
      return;
    }
    await markNotified();
    const handed = await handOffTurn(deps.dispatch, turns, request);
    if (!handed.dispatched) await handed.turn;
  })().catch((error: unknown) => deps.events.report("background_notice_failed", error, session));
}

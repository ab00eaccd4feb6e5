import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { EventPublisher } from "../events/event-publisher.js";
import { isBackground } from "../records/background-attributes.js";
import type { TurnLifecycle } from "../queue/turn-lifecycle.js";
import type { BackgroundNotices } from "./background-notices.js";
import { moveSubagent, settleSubagentTurn } from "./subagent-lifecycle.js";

/**
 * Background agents on the turn lifecycle (only sessions made as such, so other turns cost no
 * extra store reads): a turn that starts moves the agent to `running`; one that ends moves it to
 * `waiting_for_merge`; one that does not complete tells its parent (once).
 */
export function backgroundLifecycle(
  deps: Readonly<{
    store: GuardedSessionStore;
    events: Pick<EventPublisher, "publish">;
    notices: BackgroundNotices;
  }>,
): TurnLifecycle {
  const { store, events, notices } = deps;
  return {
    queued(session, lineage, turn, turns) {
      if (isBackground(session)) notices.watch(session, lineage, turn, turns);
    },
    async starting(session) {
      if (isBackground(session)) await moveSubagent(store, events.publish, session.sessionId, "running");
    },
    async settled(session, result) {
      if (isBackground(session)) await settleSubagentTurn(store, events.publish, result);
    },
  };
}

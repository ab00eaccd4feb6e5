import type { RuntimeEvent } from "../../contracts/agent-runtime.js";
import type { SignalingSessionStore } from "../../contracts/session-store.js";
import { liveEventSignals } from "../../internal/live-events.js";

/** Events waiting to be sent at most: past it, events are not sent (live events are hints; the store holds the turn). */
export const MAX_UNSENT_LIVE_EVENTS = 10_000;
/**
 * The least time between two sends: events emitted meanwhile go together (a model's text deltas
 * arrive one per network read; one store write each would cost more than it tells).
 */
export const LIVE_EVENT_COALESCE_MS = 4;

/** What {@link createLiveEventSender} makes. */
export interface LiveEventSender {
  /** Sends `event` (soon, with the events around it). */
  push(event: RuntimeEvent): void;
  /** Sends what waits now; resolves once the store took it (or failed to). */
  flush(): Promise<void>;
}

/**
 * The runtime's live events as signals on the store (topic `"event"`, key = session), so that an
 * event log in another process gets the events of a turn running here while it runs. The first
 * event after a quiet moment, and a turn's `done`, are sent on the next microtask; other events
 * that follow within {@link LIVE_EVENT_COALESCE_MS} of a send go together in the next one. A failed
 * send is dropped (the store stays the truth). Its timer never keeps the process alive.
 */
export function createLiveEventSender(store: SignalingSessionStore, origin: string): LiveEventSender {
  let unsent: RuntimeEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let soon = false;
  let lastSend = -Infinity;
  let sending: Promise<unknown> = Promise.resolve();
  const send = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    soon = false;
    lastSend = Date.now();
    const batch = unsent;
    unsent = [];
    if (batch.length === 0) return sending;
    sending = Promise.all(liveEventSignals(origin, batch).map((signal) => store.notify(signal).catch(() => undefined)));
    return sending;
  };
  const sendSoon = () => {
    if (soon) return;
    soon = true;
    queueMicrotask(() => void send());
  };
  return {
    push(event) {
      if (unsent.length >= MAX_UNSENT_LIVE_EVENTS) return;
      unsent.push(event);
      if (event.type === "done") return sendSoon();
      if (soon || timer !== undefined) return;
      const wait = lastSend + LIVE_EVENT_COALESCE_MS - Date.now();
      if (wait <= 0) return sendSoon();
      timer = setTimeout(() => void send(), wait);
      (timer as { unref?: () => void }).unref?.();
    },
    async flush() {
      await send();
    },
  };
}

import type { RuntimeEvent } from "../../contracts/agent-runtime.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { SessionSummary, SignalingSessionStore } from "../../contracts/session-store.js";
import type { RuntimeErrorInfo } from "../records/runtime-options.js";
import { labelSessionEvent } from "./event-labels.js";
import { RuntimeEventEmitter } from "./runtime-event-emitter.js";
import { createLiveEventSender } from "./live-event-sender.js";

/** How the runtime's events and unawaited failures reach the host (each member a function that stands alone). */
export interface EventPublisher {
  /** `runtime.events`. */
  readonly emitter: RuntimeEventEmitter;
  /** Sends the live events that wait to go to other processes (see `createLiveEventSender`); resolves once sent. */
  readonly flushLive: () => Promise<void>;
  /** The next event sequence number of this runtime. */
  readonly nextSeq: () => number;
  /**
   * Emits `event` on `runtime.events`; a listener that throws is reported (`listener_failed`) and never breaks the
   * caller or the listeners after it.
   */
  readonly emit: (event: RuntimeEvent) => void;
  /** Emits an event of no turn on `runtime.events` (e.g. `subagent_status`), stamped with the session's labels. */
  readonly publish: (session: SessionSummary, event: LoopEvent) => void;
  /**
   * Reports a failure of work nobody awaits (notices, async messages, listeners): `onError`, and a
   * `warning` event on `runtime.events` when the work was for a session. Never throws.
   */
  readonly report: (code: string, error: unknown, session?: SessionSummary) => void;
  /** Tells `onError` only (no event): what it throws is ignored. */
  readonly tell: (error: unknown, code: string, sessionId: string | undefined) => void;
}

/** The publisher of one runtime, telling `onError` (the host's) of what nobody awaits. */
export function createEventPublisher(
  deps: Readonly<{
    onError: ((error: unknown, info: RuntimeErrorInfo) => void) | undefined;
    /** The store when it carries signals between processes: every event is sent to them as well (live events). */
    liveStore: SignalingSessionStore | undefined;
  }>,
): EventPublisher {
  const { onError, liveStore } = deps;
  let seq = 0;
  const tell = (error: unknown, code: string, sessionId: string | undefined) => {
    try {
      onError?.(error, { code, ...(sessionId !== undefined && { sessionId }) });
    } catch {
      // onError must not throw; what it throws has nowhere left to go.
    }
  };
  // A listener that throws is reported and never breaks the caller or the listeners after it.
  const emitter = new RuntimeEventEmitter((error, event) => tell(error, "listener_failed", event.sessionId));
  const live = liveStore && createLiveEventSender(liveStore, emitter.origin);
  const emit = live
    ? (event: RuntimeEvent) => {
        emitter.emit("event", event);
        live.push(event);
      }
    : (event: RuntimeEvent) => void emitter.emit("event", event);
  const publish = (session: SessionSummary, event: LoopEvent) => {
    const { sessionId, agentId } = session;
    emit(labelSessionEvent({ ...event, sessionId, agentId, runId: "", seq: ++seq, ts: Date.now() }, session));
  };
  return {
    emitter,
    flushLive: async () => live?.flush(),
    nextSeq: () => ++seq,
    emit,
    publish,
    report(code, error, session) {
      tell(error, code, session?.sessionId);
      if (session)
        publish(session, {
          type: "warning",
          code,
          message: `${code}: ${error instanceof Error ? error.message : String(error)}`,
          depth: 0,
          parentId: null,
        });
    },
    tell,
  };
}

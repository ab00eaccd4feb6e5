import type { AgentRuntime, RuntimeEvent } from "../contracts/agent-runtime.js";
import type { HistoryRecord } from "../contracts/session-store.js";
import type { RedactHook } from "./inspector-options.js";
import type { LiveMessage } from "./inspector-api-types.js";
import { InspectorHttpError } from "./inspector-http.js";
import { loadRedacted } from "./redact-record.js";
import type { RuntimeTurnRecord } from "../runtime/create-agent-runtime.js";
import { turnChains } from "./turn-records.js";
import { buildTurnTree } from "./turn-tree.js";
import { isSignalingSessionStore } from "../sessions/session-store.js";
import { signalConcerns } from "../internal/store-signal.js";

/** Records sent in one SSE write at most (the rest follow on the next read). */
const MAX_BATCH = 200;
/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** The store is read again this soon after activity (a signal may come before its record is stored), then less often. */
const FIRST_RECHECK_MS = 2;

/** Live streams open now: over all callers, and per tenant (`scopePrefix`; a tenant with none open has no entry). */
export interface LiveCount {
  open: number;
  byScope: Map<string, number>;
}

/** What {@link liveResponse} takes. */
export interface LiveOptions {
  runtime: AgentRuntime;
  sessionId: string;
  afterSeq: number;
  redact: RedactHook | undefined;
  /** The longest wait between two reads of the store when no signal came (the lost-signal fallback). */
  pollMs: number;
  /** Streams open now, shared by the inspector; checked against `maxConnections` and `maxPerScope`. */
  live: LiveCount;
  maxConnections: number;
  /** The caller's tenant (`authorize`'s `scopePrefix`): its streams count against `maxPerScope`. */
  scopePrefix: string;
  maxPerScope: number;
  signal: AbortSignal;
}

/**
 * A `text/event-stream` of the session's records (read through `loadRedacted`, so records and trees are redacted) after `afterSeq` (`event: record`, `id:` = seq),
 * each batch followed by the refreshed tree of the turn it belongs to (`event: turn`). Reads the
 * store when the runtime emits an event of the session, and when the store signals one of the
 * session from another process (a live event, a decision, a turn's end: `SignalingSessionStore`),
 * again 2 ms after such activity and then less often, doubling up to `pollMs` (the fallback for a
 * lost signal); a comment every 15 s; ends when the client goes (`signal`).
 */
export function liveResponse(options: LiveOptions): Response {
  const { live, scopePrefix } = options;
  const ofScope = live.byScope.get(scopePrefix) ?? 0;
  if (live.open >= options.maxConnections || ofScope >= options.maxPerScope)
    throw new InspectorHttpError(503, "too many live connections");
  live.open++;
  live.byScope.set(scopePrefix, ofScope + 1);
  const encoder = new TextEncoder();
  const state: LiveState = {
    afterSeq: options.afterSeq,
    pending: [],
    chainSeq: undefined,
    turnNumber: 0,
    closed: false,
    recheckMs: FIRST_RECHECK_MS,
  };
  let wake: (() => void) | undefined;
  const poke = () => {
    state.recheckMs = FIRST_RECHECK_MS;
    wake?.();
  };
  const onEvent = (event: RuntimeEvent) => {
    if (event.sessionId === options.sessionId) poke();
  };
  const store = options.runtime.store;
  const unsubscribe: (() => void)[] = [];
  let finish = (): void => undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      finish = () => {
        if (state.closed) return;
        state.closed = true;
        live.open--;
        const left = (live.byScope.get(scopePrefix) ?? 1) - 1;
        if (left > 0) live.byScope.set(scopePrefix, left);
        else live.byScope.delete(scopePrefix);
        options.runtime.events.off("event", onEvent);
        for (const stop of unsubscribe) stop();
        options.signal.removeEventListener("abort", onAbort);
        wake?.();
      };
      const onAbort = () => {
        finish();
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      options.runtime.events.on("event", onEvent);
      if (isSignalingSessionStore(store))
        for (const topic of ["event", "session"])
          unsubscribe.push(
            store.subscribe(topic, (signal) => {
              if (signalConcerns(signal, options.sessionId)) poke();
            }),
          );
      options.signal.addEventListener("abort", onAbort, { once: true });
      if (options.signal.aborted) onAbort();
      controller.enqueue(encoder.encode(": live\n\n"));
    },
    async pull(controller) {
      try {
        const text = await nextChunk(options, state, (resolve) => (wake = resolve));
        if (state.closed) return;
        controller.enqueue(encoder.encode(text));
      } catch {
        finish();
        controller.close();
      }
    },
    cancel() {
      finish();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
}

interface LiveState {
  afterSeq: number;
  pending: HistoryRecord[];
  /**
   * Seq of the start of the latest turn chain (a resumed turn belongs to the chain it resumes):
   * `turn` messages refresh that chain. `undefined` until read; `-1` when the session has no turn.
   */
  chainSeq: number | undefined;
  /** The chain's number in the session (1 = first turn). */
  turnNumber: number;
  closed: boolean;
  /** The next fallback read's wait: short after activity, doubling to `pollMs`. */
  recheckMs: number;
}

/** Waits for new records (or the heartbeat) and returns the next SSE text. */
async function nextChunk(
  options: LiveOptions,
  state: LiveState,
  setWake: (resolve: () => void) => void,
): Promise<string> {
  const started = Date.now();
  for (;;) {
    if (state.closed) return "";
    if (state.chainSeq === undefined) await findChain(options, state);
    if (state.pending.length === 0) {
      const fresh = await loadRedacted(options.runtime, options.redact, options.sessionId, {
        afterSeq: state.afterSeq,
      });
      state.pending.push(...fresh);
    }
    if (state.pending.length > 0) {
      state.recheckMs = FIRST_RECHECK_MS;
      return batchText(options, state);
    }
    if (Date.now() - started >= HEARTBEAT_MS) return ": ping\n\n";
    const wait = Math.min(state.recheckMs, options.pollMs, HEARTBEAT_MS - (Date.now() - started));
    state.recheckMs = Math.min(state.recheckMs * 2, options.pollMs);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      setWake(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

async function batchText(options: LiveOptions, state: LiveState): Promise<string> {
  const batch = state.pending.splice(0, MAX_BATCH);
  let text = "";
  for (const record of batch) {
    if (isChainStart(record)) {
      state.chainSeq = record.seq;
      state.turnNumber++;
    }
    const message: LiveMessage = {
      type: "record",
      seq: record.seq,
      record,
    };
    text += `event: record\nid: ${record.seq}\ndata: ${JSON.stringify(message)}\n\n`;
  }
  state.afterSeq = batch[batch.length - 1]!.seq;
  if (state.pending.length === 0) text += await turnText(options, state);
  return text;
}

/** A turn start that is not a resumption: a new chain. */
function isChainStart(record: HistoryRecord): boolean {
  if (record.kind !== "turn" || record.phase !== "start") return false;
  const turn: RuntimeTurnRecord = record;
  return turn.resumeOf === undefined;
}

/** Reads (once) which chain is the latest up to `afterSeq`, and its number. */
async function findChain(options: LiveOptions, state: LiveState): Promise<void> {
  const roots = await options.runtime.store.load(options.sessionId, { frame: null });
  state.chainSeq = -1;
  state.turnNumber = 0;
  for (const record of roots) {
    if (record.seq > state.afterSeq) break;
    if (isChainStart(record)) {
      state.chainSeq = record.seq;
      state.turnNumber++;
    }
  }
}

/** The refreshed tree of the latest turn chain (read from its start on, not the whole session). */
async function turnText(options: LiveOptions, state: LiveState): Promise<string> {
  if (state.chainSeq === undefined || state.chainSeq < 0) return "";
  const records = await loadRedacted(options.runtime, options.redact, options.sessionId, {
    afterSeq: state.chainSeq - 1,
  });
  const chain = turnChains(records)[0];
  if (!chain) return "";
  const message: LiveMessage = { type: "turn", seq: state.afterSeq, turn: buildTurnTree(chain, state.turnNumber) };
  return `event: turn\ndata: ${JSON.stringify(message)}\n\n`;
}

import type { RuntimeEvent } from "../contracts/agent-runtime.js";
import type { StoreSignal } from "../contracts/session-store.js";
import { MAX_STORE_SIGNAL_BYTES } from "./store-signal.js";
import { utf8Length } from "./store-signal.js";

/** The store signal topic of live events: key = the events' session, data = {@link LiveEventData}. */
export const LIVE_EVENT_TOPIC = "event";

/** What ends a string, an array or an object cut to fit a signal. */
export const TRUNCATION_MARKER = "…[truncated]";

/** The data of a live events signal: the sending runtime (`runtime.events.origin`) and its events, in order. */
export interface LiveEventData {
  o: string;
  e: RuntimeEvent[];
}

/** Fields every event keeps whole: what a receiver orders and routes by. */
const IDENTITY = new Set(["type", "sessionId", "agentId", "runId", "seq", "ts", "depth", "parentId"]);
/** Nesting kept when an event is cut (deeper values become the marker). */
const MAX_CUT_DEPTH = 16;

/** The envelope of one signal without its events: `{"topic":"event","key":...,"data":{"o":...,"e":[]}}`. */
function envelopeBytes(sessionId: string, origin: string): number {
  return utf8Length(JSON.stringify({ topic: LIVE_EVENT_TOPIC, key: sessionId, data: { o: origin, e: [] } }));
}

/**
 * `events` as store signals of at most `MAX_STORE_SIGNAL_BYTES` each: one session's events per
 * signal, in order, as many as fit. An event too big for a signal of its own travels cut: its
 * long strings shortened and ended with {@link TRUNCATION_MARKER}, and only when that is not
 * enough its long arrays and objects too (a last item or key of the marker); its identity fields
 * (type, session, run, seq, ...) stay whole. One that cannot fit even so (or is not JSON) is left out.
 */
export function liveEventSignals(origin: string, events: readonly RuntimeEvent[]): StoreSignal[] {
  const signals: StoreSignal[] = [];
  const open = new Map<string, { events: RuntimeEvent[]; bytes: number }>();
  for (const event of events) {
    const sessionId = event.sessionId;
    const envelope = envelopeBytes(sessionId, origin);
    const room = MAX_STORE_SIGNAL_BYTES - envelope;
    const fitted = fitEvent(event, room);
    if (!fitted) continue;
    let batch = open.get(sessionId);
    if (batch && batch.bytes + 1 + fitted.bytes > room) {
      signals.push(liveSignal(sessionId, origin, batch.events));
      batch = undefined;
    }
    if (!batch) open.set(sessionId, (batch = { events: [], bytes: -1 }));
    batch.events.push(fitted.event);
    batch.bytes += 1 + fitted.bytes;
  }
  for (const [sessionId, batch] of open) signals.push(liveSignal(sessionId, origin, batch.events));
  return signals;
}

function liveSignal(sessionId: string, origin: string, events: RuntimeEvent[]): StoreSignal {
  const data: LiveEventData = { o: origin, e: events };
  // Events are JSON (fitEvent measured each one's JSON); their types say more than `JsonValue`.
  return { topic: LIVE_EVENT_TOPIC, key: sessionId, data: data as unknown as StoreSignal["data"] };
}

/** The event, or a cut copy, whose JSON takes at most `room` bytes; undefined when none does. */
function fitEvent(event: RuntimeEvent, room: number): { event: RuntimeEvent; bytes: number } | undefined {
  const size = (value: unknown): number | undefined => {
    try {
      const json = JSON.stringify(value);
      return json === undefined ? undefined : utf8Length(json);
    } catch {
      return undefined; // not JSON: never sent
    }
  };
  const whole = size(event);
  if (whole === undefined) return undefined;
  if (whole <= room) return { event, bytes: whole };
  // Strings first (the shape stays whole), then arrays and objects too.
  for (const items of [Infinity, 64, 8, 1]) {
    for (let chars = Math.floor(room / 2); chars >= 8; chars = Math.floor(chars / 2)) {
      const cut = cutEvent(event, chars, items);
      const bytes = size(cut);
      if (bytes !== undefined && bytes <= room) return { event: cut, bytes };
    }
  }
  return undefined;
}

function cutEvent(event: RuntimeEvent, chars: number, items: number): RuntimeEvent {
  // The event's own fields, each kept or cut: the same members, so the same event type.
  const copy: RuntimeEvent = { ...event };
  for (const key of Object.keys(copy) as (keyof RuntimeEvent)[])
    if (!IDENTITY.has(key)) Reflect.set(copy, key, cutValue(copy[key], chars, items, 1));
  return copy;
}

function cutValue(value: unknown, chars: number, items: number, depth: number): unknown {
  if (typeof value === "string") return value.length > chars ? `${value.slice(0, chars)}${TRUNCATION_MARKER}` : value;
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_CUT_DEPTH && items !== Infinity) return TRUNCATION_MARKER;
  if (Array.isArray(value)) {
    const kept = value.slice(0, items).map((item: unknown) => cutValue(item, chars, items, depth + 1));
    if (value.length > items) kept.push(TRUNCATION_MARKER);
    return kept;
  }
  const copy: Record<string, unknown> = {};
  let count = 0;
  for (const [key, item] of Object.entries(value)) {
    if (count++ >= items * 4) {
      copy[TRUNCATION_MARKER] = true;
      break;
    }
    copy[key] = cutValue(item, chars, items, depth + 1);
  }
  return copy;
}

/**
 * The sender and events of a live events signal from another process, checked (another process
 * may run another version, and the table is writable by anyone with the database): undefined
 * when it is not one, and events that do not name the signal's session, a numeric `seq` and a
 * string `type` and `runId` are left out.
 */
export function liveEventsOf(signal: StoreSignal): LiveEventData | undefined {
  const data = signal.data as Partial<LiveEventData> | null | undefined;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  if (typeof data.o !== "string" || !Array.isArray(data.e)) return undefined;
  const events = (data.e as unknown[]).filter(
    (event): event is RuntimeEvent =>
      typeof event === "object" &&
      event !== null &&
      (event as RuntimeEvent).sessionId === signal.key &&
      typeof (event as RuntimeEvent).type === "string" &&
      typeof (event as RuntimeEvent).runId === "string" &&
      Number.isSafeInteger((event as RuntimeEvent).seq),
  );
  return { o: data.o, e: events };
}

/** The id a runtime's events emitter sends its live events under (`RuntimeEventEmitter.origin`), if it has one. */
export function liveOriginOf(events: object): string | undefined {
  const origin: unknown = "origin" in events ? events.origin : undefined;
  return typeof origin === "string" && origin !== "" ? origin : undefined;
}

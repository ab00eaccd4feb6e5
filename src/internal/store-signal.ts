import { InvalidArgumentError } from "../errors/errors.js";
import type { StoreSignal } from "../contracts/session-store.js";

/** The most a `StoreSignal`'s JSON may take, in UTF-8 bytes (PostgreSQL's NOTIFY takes under 8000). */
export const MAX_STORE_SIGNAL_BYTES = 7_000;

/**
 * The key of a signal a store sends after it may have lost signals (its listening connection came
 * up, or back after a drop): every key of the topic may have changed. No session has the empty id.
 */
export const RESYNC_KEY = "";

/** The resync signal of `topic` (see {@link RESYNC_KEY}). */
export function resyncSignal(topic: string): StoreSignal {
  return { topic, key: RESYNC_KEY, data: { resync: true } };
}

/** Whether `signal` concerns `key`: it names it, or it is a resync (every key). */
export function signalConcerns(signal: StoreSignal, key: string): boolean {
  return signal.key === key || signal.key === RESYNC_KEY;
}

/**
 * The signal's JSON, checked: `topic` a non-empty string, `key` a string, `data` plain JSON, the
 * whole at most {@link MAX_STORE_SIGNAL_BYTES} UTF-8 bytes; else `InvalidArgumentError` (`what`
 * names the caller).
 */
export function checkStoreSignal(what: string, signal: StoreSignal): string {
  if (typeof signal !== "object" || signal === null) throw new InvalidArgumentError(`${what}: a signal is an object`);
  if (typeof signal.topic !== "string" || signal.topic === "")
    throw new InvalidArgumentError(`${what}: a signal's topic is a non-empty string`);
  if (typeof signal.key !== "string") throw new InvalidArgumentError(`${what}: a signal's key is a string`);
  let json: string;
  try {
    json = JSON.stringify({ topic: signal.topic, key: signal.key, data: signal.data });
  } catch (error) {
    throw new InvalidArgumentError(`${what}: a signal's data is plain JSON`, { cause: error });
  }
  const size = utf8Length(json);
  if (size > MAX_STORE_SIGNAL_BYTES)
    throw new InvalidArgumentError(`${what}: a store signal takes ${size} bytes, over ${MAX_STORE_SIGNAL_BYTES}`);
  return json;
}

/** The UTF-8 length of `text` without encoding it (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

type Listener = (signal: StoreSignal) => void;

/**
 * The subscribers of each topic of one store object: what `subscribe` returns removes one; a
 * listener's throw never keeps a signal from the others.
 */
export class SignalListeners {
  readonly #topics = new Map<string, Set<Listener>>();

  /** Whether any listener is subscribed. */
  get size(): number {
    return this.#topics.size;
  }

  /** The topics with listeners. */
  topics(): string[] {
    return [...this.#topics.keys()];
  }

  add(topic: string, listener: Listener): () => void {
    if (typeof topic !== "string" || topic === "")
      throw new InvalidArgumentError("subscribe: the topic is a non-empty string");
    if (typeof listener !== "function") throw new InvalidArgumentError("subscribe: the listener is a function");
    // Its own entry: the same function subscribed twice is called twice and removed once per call.
    const entry: Listener = (signal) => listener(signal);
    let listeners = this.#topics.get(topic);
    if (!listeners) this.#topics.set(topic, (listeners = new Set()));
    listeners.add(entry);
    return () => {
      listeners.delete(entry);
      if (listeners.size === 0 && this.#topics.get(topic) === listeners) this.#topics.delete(topic);
    };
  }

  /** Calls every listener of the signal's topic with a copy of its own. */
  deliver(signal: StoreSignal): void {
    const listeners = this.#topics.get(signal.topic);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(structuredClone(signal));
      } catch {
        // A signal is a hint: one subscriber's failure must not keep it from the others.
      }
    }
  }

  clear(): void {
    this.#topics.clear();
  }
}

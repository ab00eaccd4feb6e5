import { InvalidArgumentError } from "../errors/errors.js";
import { abortError, sleep } from "../internal/abort.js";
import { isTimeLimit } from "../internal/timer-delay.js";
import type { ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";
import {
  iterateFakeTurnEvents,
  resolveFakeTurn,
  type FakeCallInfo,
  type FakeScript,
  type FakeTurn,
} from "./fake-script.js";

const PROVIDER_CALL: FakeCallInfo = Object.freeze({ transport: "provider" });

/** Options of {@link createFakeProvider}. */
export interface FakeProviderOptions {
  /** @default "fake" */
  id?: string;
  /** Keep a deep copy of every request in `calls`. Turn off in benchmarks. @default true */
  record?: boolean;
}

/** A scripted provider with its recorded requests. */
export interface FakeProvider extends Provider {
  /** A snapshot (deep copy) of every request, in order. */
  readonly calls: ModelRequest[];
  /** Unconsumed scripted turns (array form; `Infinity` for a function script). */
  remaining(): number;
}

/**
 * A deterministic, offline provider that plays a script. Sub-task loops call the same provider;
 * a function script can branch on `request.system` or the last message.
 *
 * A request beyond the end of an array script fails with an error naming the call index.
 *
 * @example
 * const provider = createFakeProvider([
 *   { toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] },
 *   { text: "It is 3." },
 * ]);
 */
export function createFakeProvider(script: FakeScript, options: FakeProviderOptions = {}): FakeProvider {
  const calls: ModelRequest[] = [];
  const record = options.record ?? true;
  let next = 0;
  return {
    id: options.id ?? "fake",
    calls,
    remaining: () => (typeof script === "function" ? Number.POSITIVE_INFINITY : Math.max(0, script.length - next)),
    stream(request, { signal }) {
      // Nothing happens until the first `next()`, as with an async generator: the call index is
      // taken and the request recorded when the stream is read.
      return new FakeStream(async () => {
        const callIndex = next++;
        if (record) calls.push(structuredClone(request));
        if (signal.aborted) throw abortError(signal);
        const resolved = resolveFakeTurn(script, request, callIndex, PROVIDER_CALL);
        const turn = resolved instanceof Promise ? await resolved : resolved;
        if (turn.delayMs !== undefined && !isTimeLimit(turn.delayMs)) {
          throw new InvalidArgumentError(
            `Fake provider: delayMs of call ${callIndex} must be a number of 0 or more (Infinity waits for the abort), got ${String(turn.delayMs)}`,
          );
        }
        if (turn.delayMs) await sleep(turn.delayMs, signal);
        return { turn, events: iterateFakeTurnEvents(turn, callIndex) };
      }, signal);
    },
  };
}

/**
 * The events of one scripted turn as an async iterator: an async generator would do, but this is
 * about twice as fast per event, and the fake provider sits on every benchmark's hot path.
 * Checks the signal before each event; throws the turn's scripted error after its events.
 */
class FakeStream implements AsyncIterableIterator<ModelEvent> {
  #start: (() => Promise<{ turn: FakeTurn; events: Iterator<ModelEvent> }>) | undefined;
  /** The start, shared by `next()` calls made before it finished. */
  #starting: Promise<{ turn: FakeTurn; events: Iterator<ModelEvent> }> | undefined;
  #turn: FakeTurn | undefined;
  #events: Iterator<ModelEvent> | undefined;
  #done = false;

  constructor(
    start: () => Promise<{ turn: FakeTurn; events: Iterator<ModelEvent> }>,
    private readonly signal: AbortSignal,
  ) {
    this.#start = start;
  }

  async next(): Promise<IteratorResult<ModelEvent>> {
    if (this.#done) return { value: undefined, done: true };
    try {
      if (this.#events === undefined) {
        this.#starting ??= this.#start!();
        ({ turn: this.#turn, events: this.#events } = await this.#starting);
        if (this.#done) return { value: undefined, done: true }; // return() came meanwhile
      }
      const step = this.#events.next();
      if (!step.done) {
        if (this.signal.aborted) throw abortError(this.signal);
        return step;
      }
      this.#done = true;
      // The script decides what is thrown (usually a ProviderError); it is not ours to wrap.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (this.#turn!.error !== undefined) throw this.#turn!.error;
      return { value: undefined, done: true };
    } catch (error) {
      this.#done = true;
      throw error;
    }
  }

  async return(): Promise<IteratorResult<ModelEvent>> {
    this.#done = true;
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

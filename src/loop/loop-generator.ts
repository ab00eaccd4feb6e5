import type { LoopEvent } from "../contracts/loop-event.js";
import type { LoopResult } from "../contracts/loop-result.js";
import type { EventSink } from "./event-sink.js";

/** A started loop as {@link LoopGenerator} drives it. */
export interface LoopRun {
  sink: EventSink;
  /** Set once every level has finished (`notify()` on the sink after setting it). */
  outcome(): { result: LoopResult } | { error: unknown } | undefined;
  /** Called once when the loop stops: `early` when the consumer left before the last event. */
  cleanup(early: boolean): void;
  /** The events after the levels' own (an internal error, then `done`) and the return value. */
  tail(outcome: { result: LoopResult } | { error: unknown }): { events: LoopEvent[]; result: LoopResult };
}

type Phase = "new" | "running" | "ending" | "finished";
type Step<R> = IteratorResult<LoopEvent, R>;

/**
 * The loop's async generator, written by hand: `next()` hands over a queued event with one resolved
 * promise, where an `async function*` pays a generator resume and an extra await per `yield`.
 * Behaves as the generator it replaces: `start` runs at the first `next()` (its throw rejects that
 * call and ends the generator); calls to `next`/`return`/`throw` are served in order, one at a
 * time; the acknowledgement of an event whose producer waits (`EventSink.emitAndWait`) is given
 * when the consumer asks for the next one; `return()` and `throw()` before the end stop the loop
 * (`cleanup(true)`), after which `next()` reports done.
 */
export class LoopGenerator<R extends LoopResult> implements AsyncGenerator<LoopEvent, R> {
  #phase: Phase = "new";
  #start: (() => LoopRun) | undefined;
  #run: LoopRun | undefined;
  #ack: (() => void) | undefined;
  #tail: LoopEvent[] = [];
  #result: R | undefined;
  /** The call being served asynchronously, when one is; later calls queue behind it. */
  #busy: Promise<unknown> | undefined;

  constructor(start: () => LoopRun) {
    this.#start = start;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** `await using`: as a native async generator, `return()` (defined below where the runtime has the symbol). */
  declare [Symbol.asyncDispose]: () => Promise<void>;

  next(): Promise<Step<R>> {
    return this.#serve(() => this.#advance());
  }

  return(value: R | PromiseLike<R>): Promise<Step<R>> {
    return this.#serve(async () => {
      this.#stop();
      return { done: true, value: await value };
    });
  }

  throw(error: unknown): Promise<Step<R>> {
    return this.#serve(() => {
      this.#stop();
      throw error;
    });
  }

  /** Runs `op` now when nothing is pending (no extra promise hop), else after the pending call. */
  #serve(op: () => Step<R> | Promise<Step<R>>): Promise<Step<R>> {
    const busy = this.#busy;
    if (busy === undefined) {
      let step: Step<R> | Promise<Step<R>>;
      try {
        step = op();
      } catch (error) {
        return Promise.reject(error);
      }
      // A promise from `#later` keeps `#busy` itself; `return()`'s own is tracked here.
      return step instanceof Promise ? (this.#busy === step ? step : this.#track(step)) : Promise.resolve(step);
    }
    return this.#track(busy.then(op, op));
  }

  #track(step: Promise<Step<R>>): Promise<Step<R>> {
    this.#busy = step;
    const clear = () => {
      if (this.#busy === step) this.#busy = undefined;
    };
    step.then(clear, clear);
    return step;
  }

  #advance(): Step<R> | Promise<Step<R>> {
    switch (this.#phase) {
      case "new": {
        const start = this.#start!;
        this.#start = undefined;
        this.#phase = "finished";
        this.#run = start();
        this.#phase = "running";
        return this.#pull();
      }
      case "running": {
        const ack = this.#ack;
        this.#ack = undefined;
        ack?.();
        return this.#pull();
      }
      case "ending":
        return this.#fromTail();
      case "finished":
        // As a finished `async function*`: done, with no value.
        return { done: true, value: undefined as never };
      default: {
        const never: never = this.#phase;
        throw new Error(`unknown phase ${String(never)}`);
      }
    }
  }

  #pull(): Step<R> | Promise<Step<R>> {
    const run = this.#run!;
    const event = run.sink.take();
    if (event !== undefined) {
      this.#ack = run.sink.ack;
      return { done: false, value: event };
    }
    const outcome = run.outcome();
    if (outcome === undefined) return this.#later(run);
    run.cleanup(false);
    const { events, result } = run.tail(outcome);
    this.#tail = events;
    this.#result = result as R;
    this.#phase = "ending";
    return this.#fromTail();
  }

  /**
   * Nothing queued yet: the consumer's promise is settled by the producer's next emit itself (no
   * promise of our own between the two). Later calls queue behind it until then. The executor and
   * the wake-up are made once per generator, not per wait.
   */
  #later(run: LoopRun): Promise<Step<R>> {
    const step = new Promise<Step<R>>(this.#park);
    this.#waiting = step;
    this.#busy = step;
    run.sink.onReady(this.#wake);
    return step;
  }

  /** The consumer's pending promise while the loop has nothing for it, with its settle functions. */
  #waiting: Promise<Step<R>> | undefined;
  #resolve: ((step: Step<R> | PromiseLike<Step<R>>) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  readonly #park = (
    resolve: (step: Step<R> | PromiseLike<Step<R>>) => void,
    reject: (error: unknown) => void,
  ): void => {
    this.#resolve = resolve;
    this.#reject = reject;
  };
  readonly #wake = (): void => {
    const resolve = this.#resolve!;
    const reject = this.#reject!;
    if (this.#busy === this.#waiting) this.#busy = undefined;
    this.#waiting = this.#resolve = this.#reject = undefined;
    try {
      resolve(this.#pull());
    } catch (error) {
      reject(error);
    }
  };

  #fromTail(): Step<R> {
    const event = this.#tail.shift();
    if (event !== undefined) return { done: false, value: event };
    this.#phase = "finished";
    const result = this.#result!;
    this.#result = undefined;
    return { done: true, value: result };
  }

  /** `return()` / `throw()`: a running loop is stopped as the consumer left it. */
  #stop(): void {
    const running = this.#phase === "running";
    this.#phase = "finished";
    this.#start = undefined;
    this.#tail = [];
    this.#result = undefined;
    if (running) this.#run!.cleanup(true);
  }
}

// Native async generators inherit `[Symbol.asyncDispose]` (it calls `return()`) on runtimes that
// have the symbol; so does this one, so `await using run = runUnifiedAgentLoop(...)` stops the loop.
if (typeof Symbol.asyncDispose === "symbol") {
  Object.defineProperty(LoopGenerator.prototype, Symbol.asyncDispose, {
    async value(this: LoopGenerator<LoopResult>): Promise<void> {
      await this.return(undefined as never);
    },
    writable: true,
    configurable: true,
  });
}

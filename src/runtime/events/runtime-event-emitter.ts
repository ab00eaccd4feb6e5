import { EventEmitter } from "eventemitter3";
import type { RuntimeEvent, RuntimeEvents } from "../../contracts/agent-runtime.js";

type Listener = (event: RuntimeEvent) => void;

/**
 * `runtime.events`: an eventemitter3 `EventEmitter` whose listeners are isolated from each other.
 * eventemitter3's own `emit` stops at the first listener that throws, so one host listener with a
 * bug would silence the event log, tracing and a dispatcher's forwarding registered after it.
 * Here each listener is registered wrapped in a guard that hands what it throws to `report`, so
 * `emit` still calls every listener in registration order, with its `context` as `this`, and
 * removes a `once` listener before calling it (eventemitter3's own bookkeeping, unchanged).
 * `removeListener` / `off` and `listeners` speak of the host's functions, never of the guards.
 */
export class RuntimeEventEmitter extends EventEmitter<RuntimeEvents> {
  /**
   * This runtime's id in the live events it sends to other processes through the store's signals:
   * `createEventLog` skips the signals of its own runtime (it has those events already).
   */
  readonly origin = globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  readonly #report: (error: unknown, event: RuntimeEvent) => void;
  /** The guard of each listener function (one per function: `this` is the registration's context). */
  readonly #guards = new WeakMap<Listener, Listener>();
  /** The listener function of each guard. */
  readonly #listeners = new WeakMap<Listener, Listener>();

  constructor(report: (error: unknown, event: RuntimeEvent) => void) {
    super();
    this.#report = report;
  }

  override on(event: "event", fn: Listener, context?: unknown): this {
    return super.on(event, this.#guard(fn), context);
  }

  override addListener(event: "event", fn: Listener, context?: unknown): this {
    return super.addListener(event, this.#guard(fn), context);
  }

  override once(event: "event", fn: Listener, context?: unknown): this {
    return super.once(event, this.#guard(fn), context);
  }

  override removeListener(event: "event", fn?: Listener, context?: unknown, once?: boolean): this {
    return super.removeListener(event, fn && (this.#guards.get(fn) ?? fn), context, once);
  }

  override off(event: "event", fn?: Listener, context?: unknown, once?: boolean): this {
    return super.off(event, fn && (this.#guards.get(fn) ?? fn), context, once);
  }

  override listeners(event: "event"): Listener[] {
    return super.listeners(event).map((guard) => this.#listeners.get(guard) ?? guard);
  }

  #guard(fn: Listener): Listener {
    // Not a function: eventemitter3 refuses it (TypeError), as it would unwrapped.
    if (typeof fn !== "function") return fn;
    let guard = this.#guards.get(fn);
    if (guard === undefined) {
      const report = this.#report;
      guard = function (this: unknown, event: RuntimeEvent) {
        try {
          fn.call(this, event);
        } catch (error) {
          report(error, event);
        }
      };
      this.#guards.set(fn, guard);
      this.#listeners.set(guard, fn);
    }
    return guard;
  }
}

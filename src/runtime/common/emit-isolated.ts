import { EventEmitter } from "eventemitter3";

/** One registered listener, as eventemitter3 keeps it. */
interface Registration {
  fn: (...args: unknown[]) => void;
  context: unknown;
  once: boolean;
}

/**
 * Calls every listener of `name` with `value`, in registration order, like `emitter.emit`, but a
 * listener that throws does not stop the ones after it: its error goes to `report`. eventemitter3's
 * own `emit` stops at the first throw, so one host listener with a bug would silence the event log,
 * tracing and a dispatcher's forwarding registered after it.
 *
 * `once` listeners are removed before they are called and `context` is `this`, as in `emit`. Reads
 * the emitter's registrations (`_events`, stable across eventemitter3 5.x, which the build bundles);
 * the runtime tests pin the behaviour.
 */
export function emitIsolated<T extends object>(
  emitter: EventEmitter<T>,
  name: string,
  value: unknown,
  report: (error: unknown) => void,
): void {
  const key = EventEmitter.prefixed ? `${String(EventEmitter.prefixed)}${name}` : name;
  const entry = (emitter as unknown as { _events: Record<string, Registration | Registration[] | undefined> })._events[
    key
  ];
  if (entry === undefined) return;
  if (!Array.isArray(entry)) return call(emitter, name, entry, value, report);
  for (const registration of entry.slice()) call(emitter, name, registration, value, report);
}

function call<T extends object>(
  emitter: EventEmitter<T>,
  name: string,
  registration: Registration,
  value: unknown,
  report: (error: unknown) => void,
): void {
  if (registration.once) (emitter as unknown as EventEmitter).removeListener(name, registration.fn, undefined, true);
  try {
    registration.fn.call(registration.context, value);
  } catch (error) {
    report(error);
  }
}

import type { DeliverableEvent } from "../delivery/deliverable-event.js";

/** The event of type `K`. */
export type EventOf<K extends DeliverableEvent["type"]> = Extract<DeliverableEvent, { type: K }>;

/**
 * A translator's handler for every event type, or `null` for a type it leaves out on purpose: a
 * new event type does not compile until each translator handles or ignores it.
 */
export type EventHandlers<S> = { [K in DeliverableEvent["type"]]: ((state: S, event: EventOf<K>) => void) | null };

/** Runs `event`'s handler; a type this version does not know (a newer runtime's) is ignored, not an error. */
export function handleEvent<S>(handlers: EventHandlers<S>, state: S, event: DeliverableEvent): void {
  // Each handler takes its own type's events; the lookup by `event.type` pairs them.
  type AnyHandler = ((state: S, event: DeliverableEvent) => void) | null;
  const handler = (handlers as Partial<Record<string, AnyHandler>>)[event.type];
  handler?.(state, event);
}

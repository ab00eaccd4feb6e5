import type { ModelEvent, ModelRequest, Provider } from "@agentry/core";

/** A ReadableStream of these parts, one per pull. */
export function partsStream<T>(parts: T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      const part = parts[i++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
  });
}

/** Drains a provider stream; an error is kept in `error`, not thrown. */
export async function drain(provider: Provider, request: Partial<ModelRequest> = {}, signal?: AbortSignal): Promise<{ events: ModelEvent[]; error?: unknown }> {
  const events: ModelEvent[] = [];
  try {
    const full: ModelRequest = { model: "m", system: "", messages: [{ role: "user", content: "hi" }], tools: [], ...request };
    for await (const event of provider.stream(full, { signal: signal ?? new AbortController().signal })) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

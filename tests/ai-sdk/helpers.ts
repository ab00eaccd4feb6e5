import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider-v4";
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
export async function drain(
  provider: Provider,
  request: Partial<ModelRequest> = {},
  signal?: AbortSignal,
): Promise<{ events: ModelEvent[]; error?: unknown }> {
  const events: ModelEvent[] = [];
  try {
    const full: ModelRequest = {
      model: "m",
      system: "",
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      ...request,
    };
    for await (const event of provider.stream(full, { signal: signal ?? new AbortController().signal }))
      events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

/** A V4 model (types only: the V4 runtime package needs Node 22) streaming `parts`; `calls` keeps every call's options. */
export function v4Model(
  parts: LanguageModelV4StreamPart[],
  provider = "google.generative-ai",
): LanguageModelV4 & { calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = [];
  return {
    specificationVersion: "v4",
    provider,
    modelId: "gemini",
    supportedUrls: {},
    calls,
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async (options) => {
      calls.push(options);
      return { stream: partsStream(parts) };
    },
  };
}

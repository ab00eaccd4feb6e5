import { describe, expect, it } from "vitest";
import type { Provider } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeProvider,
  createFakeResponsesServer,
  runProviderContract,
  type FakeScript,
} from "@agentry/core/testing";

runProviderContract("fake provider", (script) => createFakeProvider(script));

runProviderContract("openai() + fake OpenAI server", async (script, { onCleanup }) => {
  const server = await createFakeOpenAIServer(script);
  onCleanup(() => server.close());
  return openai({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
});

runProviderContract('openai({ api: "responses" }) + fake Responses server', async (script, { onCleanup }) => {
  const server = await createFakeResponsesServer(script);
  onCleanup(() => server.close());
  return openai({ api: "responses", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
});

runProviderContract("anthropic() + fake Anthropic server", async (script, { onCleanup }) => {
  const server = await createFakeAnthropicServer(script);
  onCleanup(() => server.close());
  return anthropic({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
});

describe("runProviderContract", () => {
  it("fails a provider that breaks the stream contract", async () => {
    const cases: { name: string; body: () => Promise<void> }[] = [];
    // Plays the script like the fake provider but emits `finish` twice and never honours abort.
    const broken = (script: FakeScript): Provider => {
      const fake = createFakeProvider(script);
      return {
        id: "broken",
        async *stream(request) {
          for await (const event of fake.stream(request, { signal: new AbortController().signal })) {
            yield event;
            if (event.type === "finish") yield event;
          }
        },
      };
    };
    runProviderContract("broken", broken, {
      describe: (_name, body) => body(),
      it: (name, body) => cases.push({ name, body }),
    });
    const failures: string[] = [];
    // (The "abort while waiting" case would sit out the broken provider's 10 s delay: skipped.)
    for (const testCase of cases.filter((c) => !c.name.startsWith("abort while waiting"))) {
      await testCase.body().catch(() => failures.push(testCase.name));
    }
    expect(cases).toHaveLength(10);
    expect(failures).toEqual(
      expect.arrayContaining([
        "streams text deltas that concatenate to the full text",
        "emits a complete tool call with parsed args",
        "abort mid-stream rejects with AbortError: nothing after the abort, no finish",
        "an already aborted signal rejects with AbortError and no events",
      ]),
    );
  });
});

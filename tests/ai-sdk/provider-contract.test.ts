import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { createFakeAnthropicServer, createFakeOpenAIServer, runProviderContract } from "@agentry/core/testing";

// The real AI SDK providers, over real HTTP, against the project's fake wire servers.
runProviderContract(
  "fromAiSdk(@ai-sdk/openai chat model) + fake OpenAI server",
  async (script, { onCleanup }) => {
    const server = await createFakeOpenAIServer(script);
    onCleanup(() => server.close());
    return fromAiSdk(createOpenAI({ baseURL: server.baseURL, apiKey: "test" }).chat("gpt-4o"), { maxRetries: 0 });
  },
  { thinking: false },
);

runProviderContract("fromAiSdk(@ai-sdk/anthropic model) + fake Anthropic server", async (script, { onCleanup }) => {
  const server = await createFakeAnthropicServer(script);
  onCleanup(() => server.close());
  return fromAiSdk(createAnthropic({ baseURL: `${server.baseURL}/v1`, apiKey: "test" })("claude-sonnet-4-5"), {
    maxRetries: 0,
  });
});

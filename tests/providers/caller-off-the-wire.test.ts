import { describe, expect, it } from "vitest";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import { createFakeAnthropicServer, createFakeOpenAIServer } from "@agentry/core/testing";
import type { ModelRequest } from "@agentry/core";
import { toAiSdkCallOptions } from "../../src/ai-sdk/to-ai-sdk-call-options.js";
import { cliPrompt } from "../../src/node/cli-prompt.js";

/** A request whose caller holds values that appear nowhere else, so any leak is visible. */
const request: ModelRequest = {
  model: "m",
  system: "Be brief.",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  caller: {
    agentId: "AGENT-SENTINEL",
    sessionId: "SESSION-SENTINEL",
    runId: "RUN-SENTINEL",
    depth: 2,
    parentId: "PARENT-SENTINEL",
    role: "ROLE-SENTINEL",
    subtaskTitle: "TITLE-SENTINEL",
  },
};
const leaks = (value: unknown) => /caller|SENTINEL/.exec(JSON.stringify(value))?.[0];

async function drain(stream: AsyncIterable<unknown>) {
  for await (const _ of stream);
}

describe("ModelRequest.caller stays in the process", () => {
  it.each([
    ["OpenAI", createFakeOpenAIServer, (baseURL: string) => openai({ baseURL, apiKey: "test" })],
    ["Anthropic", createFakeAnthropicServer, (baseURL: string) => anthropic({ baseURL, apiKey: "test" })],
  ] as const)("the %s adapter does not send it", async (_name, start, provider) => {
    const server = await start([{ text: "ok" }]);
    try {
      await drain(provider(server.baseURL).stream(request, { signal: new AbortController().signal }));
      expect(server.requests).toHaveLength(1);
      expect(leaks(server.requests[0])).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("the AI SDK bridge and the CLI prompt leave it out", () => {
    const options = toAiSdkCallOptions(request, { version: "v3", metadataKey: "openai" }, new AbortController().signal);
    expect(leaks({ ...options, abortSignal: undefined })).toBeUndefined();
    expect(cliPrompt(request)).not.toMatch(/SENTINEL/);
  });
});

import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { Message } from "@agentry/core";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { drain, partsStream, v4Model } from "./helpers.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const finish = { type: "finish" as const, usage, finishReason: { unified: "stop" as const, raw: undefined } };
const bytes = new Uint8Array([37, 80, 68, 70]);
const files: Message[] = [
  {
    role: "user",
    content: [
      { type: "file", mediaType: "application/pdf", source: { type: "data", data: "JVBERg==" }, filename: "a.pdf" },
      { type: "file", mediaType: "application/pdf", source: { type: "data", data: bytes } },
      { type: "file", mediaType: "application/pdf", source: { type: "url", url: "https://x.test/b.pdf" } },
    ],
  },
];

describe("fromAiSdk: user file parts", () => {
  it("V3: data as given (base64 text or bytes) with the filename, a URL as a URL", async () => {
    const model = new MockLanguageModelV3({
      provider: "anthropic.messages",
      doStream: async () => ({ stream: partsStream([finish]) }),
    });
    const { error } = await drain(fromAiSdk(model), { messages: files });
    expect(error).toBeUndefined();
    expect(model.doStreamCalls[0]!.prompt).toEqual([
      {
        role: "user",
        content: [
          { type: "file", mediaType: "application/pdf", data: "JVBERg==", filename: "a.pdf" },
          { type: "file", mediaType: "application/pdf", data: bytes },
          { type: "file", mediaType: "application/pdf", data: new URL("https://x.test/b.pdf") },
        ],
      },
    ]);
  });

  it("V3: a file id (which V3 cannot take) goes as a text note in its place", async () => {
    const model = new MockLanguageModelV3({
      provider: "anthropic.messages",
      doStream: async () => ({ stream: partsStream([finish]) }),
    });
    const { error } = await drain(fromAiSdk(model), {
      messages: [
        {
          role: "user",
          content: [{ type: "file", mediaType: "application/pdf", source: { type: "file_id", fileId: "f1" } }],
        },
      ],
    });
    expect(error).toBeUndefined();
    expect(model.doStreamCalls).toHaveLength(1);
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt)).toMatch(
      /\[attachment \(application\/pdf\) not sent: [a-z.]+ does not take this file by file id; attach its data instead\]/,
    );
  });

  it("V4: data and URL in V4 form, a file id as a reference under the provider's name", async () => {
    const model = v4Model([finish], "openai.responses");
    const { error } = await drain(fromAiSdk(model), {
      messages: [
        {
          role: "user",
          content: [
            ...(files[0]!.content as []),
            { type: "file", mediaType: "application/pdf", source: { type: "file_id", fileId: "file-9" } },
          ],
        },
      ],
    });
    expect(error).toBeUndefined();
    expect(model.calls[0]!.prompt[0]!.content).toEqual([
      { type: "file", mediaType: "application/pdf", data: { type: "data", data: "JVBERg==" }, filename: "a.pdf" },
      { type: "file", mediaType: "application/pdf", data: { type: "data", data: bytes } },
      { type: "file", mediaType: "application/pdf", data: { type: "url", url: new URL("https://x.test/b.pdf") } },
      { type: "file", mediaType: "application/pdf", data: { type: "reference", reference: { openai: "file-9" } } },
    ]);
  });
});

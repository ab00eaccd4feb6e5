import type { LanguageModelV2, LanguageModelV2CallOptions } from "@ai-sdk/provider-v2";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { Message, ToolResultContent } from "@agentry/core";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { drain, partsStream, v4Model } from "./helpers.js";

const PNG = "iVBORw0KGgo=";
const WAV = "UklGRg==";
const content: ToolResultContent = {
  type: "content",
  parts: [
    { type: "text", text: "The page:" },
    { type: "image", mediaType: "image/png", data: PNG },
    { type: "audio", mediaType: "audio/wav", data: WAV },
  ],
};
const messages = (result: unknown): Message[] => [
  { role: "user", content: "look" },
  { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "shot", args: {} }] },
  { role: "tool", content: [{ type: "tool_result", toolCallId: "c1", name: "shot", result }] },
];
const toolOutput = (prompt: readonly unknown[]) =>
  (prompt.at(-1) as { content: { output: unknown }[] }).content[0]!.output;

describe("fromAiSdk: a tool result with media", () => {
  it("V3: a content output with image-data and file-data parts", async () => {
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: partsStream([]) }) });
    await drain(fromAiSdk(model, { maxRetries: 0 }), { messages: messages(content) });
    expect(toolOutput(model.doStreamCalls[0]!.prompt)).toEqual({
      type: "content",
      value: [
        { type: "text", text: "The page:" },
        { type: "image-data", data: PNG, mediaType: "image/png" },
        { type: "file-data", data: WAV, mediaType: "audio/wav" },
      ],
    });
  });

  it("V2: media parts; V4: file parts with { type: 'data' }", async () => {
    const calls: LanguageModelV2CallOptions[] = [];
    const v2: LanguageModelV2 = {
      specificationVersion: "v2",
      provider: "anthropic.messages",
      modelId: "m",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: async (options) => {
        calls.push(options);
        return { stream: partsStream([]) };
      },
    };
    await drain(fromAiSdk(v2, { maxRetries: 0 }), { messages: messages(content) });
    expect(toolOutput(calls[0]!.prompt)).toMatchObject({
      type: "content",
      value: [{ type: "text" }, { type: "media", data: PNG, mediaType: "image/png" }, { type: "media" }],
    });
    const v4 = v4Model([]);
    await drain(fromAiSdk(v4, { maxRetries: 0 }), { messages: messages(content) });
    expect(toolOutput(v4.calls[0]!.prompt)).toMatchObject({
      type: "content",
      value: [{ type: "text" }, { type: "file", data: { type: "data", data: PNG }, mediaType: "image/png" }, {}],
    });
  });

  it("the real @ai-sdk/openai Responses and @ai-sdk/anthropic models send the image to their APIs", async () => {
    const bodies: string[] = [];
    const fetch = async (_url: unknown, init?: RequestInit) => {
      bodies.push(init?.body as string);
      return new Response(JSON.stringify({ error: { message: "stop here" } }), { status: 400 });
    };
    const openai = createOpenAI({ apiKey: "k", fetch }).responses("gpt-4o");
    await drain(fromAiSdk(openai, { maxRetries: 0 }), { messages: messages(content) });
    const anthropic = createAnthropic({ apiKey: "k", fetch })("claude-sonnet-4-5");
    await drain(fromAiSdk(anthropic, { maxRetries: 0 }), { messages: messages(content) });
    expect(bodies).toHaveLength(2);
    expect(JSON.parse(bodies[0]!).input).toContainEqual(
      expect.objectContaining({
        type: "function_call_output",
        output: expect.arrayContaining([
          expect.objectContaining({ type: "input_image", image_url: `data:image/png;base64,${PNG}` }),
        ]),
      }),
    );
    expect(bodies[1]).toContain(`"media_type":"image/png","data":"${PNG}"`);
  });
});

import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { LanguageModelV2, LanguageModelV2CallOptions } from "@ai-sdk/provider-v2";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ModelRequest, ToolChoice } from "@agentry/core";

type ModelTool = ModelRequest["tools"][number];
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { drain, partsStream, v4Model } from "./helpers.js";

const TOOLS: ModelTool[] = [{ name: "orders.lookup", description: "Find an order", inputSchema: { type: "object" } }];

const CHOICES: [ToolChoice, unknown][] = [
  ["auto", { type: "auto" }],
  ["required", { type: "required" }],
  ["none", { type: "none" }],
  [{ name: "orders.lookup" }, { type: "tool", toolName: "orders.lookup" }],
];

function v2Model(): LanguageModelV2 & { calls: LanguageModelV2CallOptions[] } {
  const calls: LanguageModelV2CallOptions[] = [];
  return {
    specificationVersion: "v2",
    provider: "openai.chat",
    modelId: "gpt",
    supportedUrls: {},
    calls,
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async (options) => {
      calls.push(options);
      return {
        stream: partsStream([
          { type: "finish", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, finishReason: "stop" },
        ]),
      };
    },
  };
}

function v3Model() {
  const parts: LanguageModelV3StreamPart[] = [
    {
      type: "finish",
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
      finishReason: { unified: "stop", raw: "stop" },
    },
  ];
  return new MockLanguageModelV3({ provider: "openai.chat", doStream: async () => ({ stream: partsStream(parts) }) });
}

describe("fromAiSdk: toolChoice in the call options", () => {
  it.each(CHOICES)("V2, V3 and V4 get %j as %j", async (toolChoice, expected) => {
    const v2 = v2Model();
    const v3 = v3Model();
    const v4 = v4Model([
      {
        type: "finish",
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        finishReason: { unified: "stop", raw: "stop" },
      },
    ]);
    for (const model of [v2, v3, v4]) {
      const { error } = await drain(fromAiSdk(model), { tools: TOOLS, toolChoice });
      expect(error).toBeUndefined();
    }
    expect(v2.calls[0]!.toolChoice).toEqual(expected);
    expect(v3.doStreamCalls[0]!.toolChoice).toEqual(expected);
    expect(v4.calls[0]!.toolChoice).toEqual(expected);
  });

  it("leaves toolChoice out without tools, and when it is not set", async () => {
    const model = v2Model();
    await drain(fromAiSdk(model), { tools: [], toolChoice: "required" });
    await drain(fromAiSdk(model), { tools: TOOLS });
    expect(model.calls[0]).not.toHaveProperty("toolChoice");
    expect(model.calls[1]).not.toHaveProperty("toolChoice");
  });
});

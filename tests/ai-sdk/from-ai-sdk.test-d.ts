import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { LanguageModelV2, LanguageModelV2CallOptions } from "@ai-sdk/provider-v2";
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider-v4";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { describe, expectTypeOf, it } from "vitest";
import { fromAiSdk, type AiSdkLanguageModel } from "@agentry/core/ai-sdk";
import type { Provider } from "@agentry/core";
import type { AiSdkCallOptions, AiSdkMessage } from "../../src/ai-sdk/ai-sdk-types.js";

type Param = Parameters<typeof fromAiSdk>[0];
/** The call options fromAiSdk builds, without file parts (whose data shape differs per version). */
type TextOnly = Omit<AiSdkCallOptions, "prompt"> & { prompt: Exclude<AiSdkMessage, { role: "user" }>[] };

describe("fromAiSdk accepts every supported specification version", () => {
  it("takes LanguageModelV2, V3 and V4 from the real @ai-sdk/provider packages", () => {
    expectTypeOf<LanguageModelV2>().toMatchTypeOf<Param>();
    expectTypeOf<LanguageModelV3>().toMatchTypeOf<Param>();
    expectTypeOf<LanguageModelV4>().toMatchTypeOf<Param>();
    expectTypeOf<Param>().toEqualTypeOf<AiSdkLanguageModel>();
    expectTypeOf(fromAiSdk).returns.toEqualTypeOf<Provider>();
  });

  it("takes the models of @ai-sdk/openai and @ai-sdk/anthropic as they are", () => {
    expectTypeOf(createOpenAI({ apiKey: "k" }).chat("gpt-4o")).toMatchTypeOf<Param>();
    expectTypeOf(createOpenAI({ apiKey: "k" })("gpt-4o")).toMatchTypeOf<Param>();
    expectTypeOf(createAnthropic({ apiKey: "k" })("claude-sonnet-4-5")).toMatchTypeOf<Param>();
  });

  it("builds call options each version's doStream accepts", () => {
    expectTypeOf<TextOnly>().toMatchTypeOf<LanguageModelV2CallOptions>();
    expectTypeOf<TextOnly>().toMatchTypeOf<LanguageModelV3CallOptions>();
    expectTypeOf<TextOnly>().toMatchTypeOf<LanguageModelV4CallOptions>();
    expectTypeOf<{ type: "file"; mediaType: string; data: string }>().toMatchTypeOf<
      Extract<LanguageModelV3CallOptions["prompt"][number], { role: "user" }>["content"][number]
    >();
    expectTypeOf<{ type: "file"; mediaType: string; data: string }>().toMatchTypeOf<
      Extract<LanguageModelV2CallOptions["prompt"][number], { role: "user" }>["content"][number]
    >();
    expectTypeOf<{ type: "file"; mediaType: string; data: { type: "data"; data: string } }>().toMatchTypeOf<
      Extract<LanguageModelV4CallOptions["prompt"][number], { role: "user" }>["content"][number]
    >();
  });

  it("rejects what is not a language model", () => {
    fromAiSdk({
      // @ts-expect-error a V1 model (AI SDK 4) is not supported
      specificationVersion: "v1",
      provider: "p",
      modelId: "m",
      doStream: () => Promise.resolve({ stream: new ReadableStream() }),
    });
  });
});

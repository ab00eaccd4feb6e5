import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { LanguageModelV2, LanguageModelV2CallOptions } from "@ai-sdk/provider-v2";
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider-v4";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { describe, expectTypeOf, it } from "vitest";
import { fromAiSdk, type AiSdkLanguageModel } from "@agentry/core/ai-sdk";
import type { Provider } from "@agentry/core";
import type { AiSdkCallOptions, AiSdkMessage, AiSdkToolResultPart } from "../../src/ai-sdk/ai-sdk-types.js";

type Param = Parameters<typeof fromAiSdk>[0];
/** A tool result without a `content` output (whose media parts differ per version). */
type CommonToolResult = Omit<AiSdkToolResultPart, "output"> & {
  output: Exclude<AiSdkToolResultPart["output"], { type: "content" }>;
};
/** The call options fromAiSdk builds, without file parts and media tool results (whose shapes differ per version). */
type TextOnly = Omit<AiSdkCallOptions, "prompt"> & {
  prompt: (
    Exclude<AiSdkMessage, { role: "user" } | { role: "tool" }> | { role: "tool"; content: CommonToolResult[] }
  )[];
};
/** The output of a tool result in a version's prompt message. */
type ToolOutput<P> = P extends { role: "tool"; content: (infer R)[] }
  ? R extends { type: "tool-result"; output: infer O }
    ? O
    : never
  : never;

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

  it("builds each version's content output for a tool result with media", () => {
    type Text = { type: "text"; text: string };
    expectTypeOf<{
      type: "content";
      value: (Text | { type: "media"; data: string; mediaType: string })[];
    }>().toMatchTypeOf<ToolOutput<LanguageModelV2CallOptions["prompt"][number]>>();
    expectTypeOf<{
      type: "content";
      value: (Text | { type: "image-data" | "file-data"; data: string; mediaType: string })[];
    }>().toMatchTypeOf<ToolOutput<LanguageModelV3CallOptions["prompt"][number]>>();
    expectTypeOf<{
      type: "content";
      value: (Text | { type: "file"; data: { type: "data"; data: string }; mediaType: string })[];
    }>().toMatchTypeOf<ToolOutput<LanguageModelV4CallOptions["prompt"][number]>>();
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

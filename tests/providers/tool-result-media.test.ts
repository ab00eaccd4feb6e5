import { describe, expect, it } from "vitest";
import type { Message, ModelRequest, ToolResultContent } from "@agentry/core";
import { estimateMessageTokens, IMAGE_TOKENS } from "../../src/context/estimate-tokens.js";
import { toAnthropicRequest } from "../../src/providers/anthropic/to-anthropic-request.js";
import { toOpenAIRequest } from "../../src/providers/openai/to-openai-request.js";
import { toResponsesRequest } from "../../src/providers/openai/to-responses-request.js";

const PNG = "iVBORw0KGgo=";
const WAV = "UklGRg==";
const screenshot: ToolResultContent = {
  type: "content",
  parts: [
    { type: "text", text: "The page:" },
    { type: "image", mediaType: "image/png", data: PNG },
    { type: "audio", mediaType: "audio/wav", data: WAV },
  ],
};
const messages = (result: unknown, isError = false): Message[] => [
  { role: "user", content: "look" },
  { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "shot", args: {} }] },
  {
    role: "tool",
    content: [{ type: "tool_result", toolCallId: "c1", name: "shot", result, ...(isError && { isError }) }],
  },
];
/** What the builders return, as these tests read it. */
type Body = Record<string, unknown> & { messages?: unknown; input?: unknown };
const request = (result: unknown, isError = false): ModelRequest => ({
  model: "m",
  system: "",
  messages: messages(result, isError),
  tools: [],
});

describe("a tool result with media (ToolResultContent), per provider", () => {
  it("Anthropic: tool_result content blocks with the image; audio as a note", () => {
    const body = toAnthropicRequest({ request: request(screenshot), defaultMaxTokens: 100 }) as Body;
    const wire = body.messages as { role: string; content: { type: string; content?: unknown }[] }[];
    expect(wire.at(-1)!.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "c1",
      content: [
        { type: "text", text: "The page:" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
        {
          type: "text",
          text: expect.stringMatching(/^\[audio audio\/wav, \d+ bytes, not shown: anthropic does not take/),
        },
      ],
    });
  });

  it("Anthropic: an image type the API does not read goes as a note", () => {
    const tiff: ToolResultContent = { type: "content", parts: [{ type: "image", mediaType: "image/tiff", data: PNG }] };
    const body = toAnthropicRequest({ request: request(tiff), defaultMaxTokens: 100 }) as Body;
    expect(JSON.stringify(body.messages)).toMatch(/\[image image\/tiff, \d+ bytes, not shown/);
    expect(JSON.stringify(body.messages)).not.toContain(PNG);
  });

  it("OpenAI Responses: function_call_output with an output array of input_text and input_image", () => {
    const body = toResponsesRequest(request(screenshot));
    const output = (body.input as { type?: string; output?: unknown }[]).find(
      (item) => item.type === "function_call_output",
    )!.output;
    expect(output).toEqual([
      { type: "input_text", text: "The page:" },
      { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
      { type: "input_text", text: expect.stringMatching(/^\[audio audio\/wav, .*not shown/) },
    ]);
  });

  it("OpenAI Chat Completions: the text in the tool message, the image in a user message after the results", () => {
    const body = toOpenAIRequest({
      request: request(screenshot),
      maxTokensField: "max_tokens",
      includeUsage: false,
    }) as Body;
    const wire = body.messages as { role: string; content: unknown }[];
    expect(wire.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(wire[2]!.content).toMatch(/^The page:\n\[image 1 \(image\/png\): sent in the user message after/);
    expect(wire[2]!.content).toMatch(/\[audio audio\/wav, .*not shown/);
    expect(wire[3]!.content).toEqual([
      { type: "text", text: "[image 1, from the result of tool call c1]" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
  });

  it("an error result, and a content result without media, go as text everywhere", () => {
    const textOnly: ToolResultContent = { type: "content", parts: [{ type: "text", text: "only text" }] };
    expect(
      JSON.stringify((toAnthropicRequest({ request: request(textOnly), defaultMaxTokens: 1 }) as Body).messages),
    ).toContain('"content":"only text"');
    const failed = toResponsesRequest(request(screenshot, true));
    const output = (failed.input as { type?: string; output?: unknown }[]).find(
      (item) => item.type === "function_call_output",
    )!.output;
    expect(output).toMatch(/^The page:\n\[image image\/png, \d+ bytes, not shown/);
  });

  it("a stored result whose media breaks the bounds (not base64, a hostile media type) is a note, never sent", () => {
    const hostile: ToolResultContent = {
      type: "content",
      parts: [
        { type: "image", mediaType: "image/png", data: "not base64!" },
        { type: "image", mediaType: "text/html]<x>", data: PNG },
      ],
    };
    const body = JSON.stringify(toResponsesRequest(request(hostile)));
    expect(body).not.toContain("input_image");
    expect(body).toContain("its data is not base64");
    expect(body).toContain("not an image/* media type");
    expect(body).not.toContain("<x>");
  });

  it("token estimates count each media part as an image, never its base64", () => {
    const big: ToolResultContent = {
      type: "content",
      parts: [
        { type: "text", text: "x".repeat(400) },
        { type: "image", mediaType: "image/png", data: "A".repeat(400_000) },
      ],
    };
    const tokens = estimateMessageTokens(messages(big)[2]!);
    expect(tokens).toBe(4 + 100 + IMAGE_TOKENS);
  });
});

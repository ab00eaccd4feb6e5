import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type ToolResultContent } from "@agentry/core";
import { TOOL_RESULT_MEDIA_LIMITS } from "../../src/internal/tool-result-content.js";
import { run } from "./helpers.js";

const call = [{ toolCalls: [{ id: "c1", name: "shot", args: {} }] }, { text: "ok" }];
const shot = (result: ToolResultContent) =>
  defineTool({ name: "shot", description: "Screenshot", input: z.object({}), execute: () => result });
const resultOf = (messages: { role: string; content: unknown }[]) =>
  ((messages[1]!.content as { result: unknown }[])[0]!.result as ToolResultContent).parts;

describe("a tool result with media (ToolResultContent) in the loop", () => {
  it("keeps an image whole: media bytes do not count toward maxToolResultBytes", async () => {
    const data = "A".repeat(200_000);
    const { result, provider } = await run({
      script: call,
      tools: [
        shot({
          type: "content",
          parts: [
            { type: "text", text: "see" },
            { type: "image", mediaType: "image/png", data },
          ],
        }),
      ],
      budget: { maxToolResultBytes: 1_000 },
    });
    expect(resultOf(result.messages)).toEqual([
      { type: "text", text: "see" },
      { type: "image", mediaType: "image/png", data },
    ]);
    expect(provider.calls[1]!.messages.at(-1)).toMatchObject({ role: "tool" });
  });

  it("cuts the text parts to maxToolResultBytes with the truncation notice, keeping the media", async () => {
    const { result } = await run({
      script: call,
      tools: [
        shot({
          type: "content",
          parts: [
            { type: "text", text: "x".repeat(600) },
            { type: "image", mediaType: "image/png", data: "AAAA" },
            { type: "text", text: "y".repeat(600) },
            { type: "text", text: "z".repeat(600) },
          ],
        }),
      ],
      budget: { maxToolResultBytes: 1_000 },
    });
    const parts = resultOf(result.messages);
    expect(parts.map((p) => p.type)).toEqual(["text", "image", "text"]);
    const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/…\[truncated: kept \d+ of 1800 bytes\]$/);
    expect(text).not.toContain("z");
  });

  it("a 50 MB image, more than 16 images, or a type that is not image/* become notes the model reads", async () => {
    const huge = "A".repeat(50 * 1024 * 1024);
    const many = Array.from({ length: TOOL_RESULT_MEDIA_LIMITS.parts + 1 }, () => ({
      type: "image" as const,
      mediaType: "image/png",
      data: "AAAA",
    }));
    const { result } = await run({
      script: call,
      tools: [
        shot({
          type: "content",
          parts: [
            { type: "image", mediaType: "image/png", data: huge },
            ...many,
            { type: "image", mediaType: "text/html", data: "AAAA" },
          ],
        }),
      ],
    });
    const parts = resultOf(result.messages);
    expect(parts[0]).toEqual({
      type: "text",
      text: expect.stringMatching(/^\[image image\/png, 39321600 bytes, not shown: larger than/),
    });
    expect(parts.filter((p) => p.type === "image")).toHaveLength(TOOL_RESULT_MEDIA_LIMITS.parts);
    expect(parts.at(-2)).toEqual({ type: "text", text: expect.stringMatching(/more than 16 media parts/) });
    expect(parts.at(-1)).toEqual({ type: "text", text: expect.stringMatching(/not an image\/\* media type/) });
  });

  it("a value that only looks like content (a part of an unknown type) is an ordinary JSON result", async () => {
    const odd = { type: "content", parts: [{ type: "video", data: "x" }] };
    const { result } = await run({
      script: call,
      tools: [defineTool({ name: "shot", description: "s", input: z.object({}), execute: () => odd })],
    });
    expect((result.messages[1]!.content as { result: unknown }[])[0]!.result).toEqual(odd);
  });
});

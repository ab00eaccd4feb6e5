import { describe, expect, it } from "vitest";
import { type FilePart, type ImagePart, type Message } from "@agentry/core";
import {
  CHARS_PER_TOKEN,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  estimateMessageTokens,
  estimateTokens,
} from "../../src/context/estimate-tokens.js";
import { pruneHistory } from "../../src/context/prune-history.js";
import { answer, exchange, text, user } from "./helpers.js";

const tokensOf = (chars: number): number => MESSAGE_OVERHEAD_TOKENS + Math.ceil(chars / CHARS_PER_TOKEN);

describe("estimateMessageTokens", () => {
  it("counts text at CHARS_PER_TOKEN characters per token, rounded up, plus the message overhead", () => {
    expect(CHARS_PER_TOKEN).toBe(4);
    for (const length of [0, 1, 3, 4, 5, 8, 9, 400, 4_001]) {
      expect(estimateMessageTokens(user(text(length)))).toBe(tokensOf(length));
      expect(estimateMessageTokens(answer(text(length)))).toBe(tokensOf(length));
    }
  });

  it("sums the characters of a message's parts before rounding", () => {
    const message: Message = {
      role: "user",
      content: [
        { type: "text", text: "abc" },
        { type: "text", text: "de" },
      ],
    };
    expect(estimateMessageTokens(message)).toBe(tokensOf(5));
  });

  it("counts a 5 MB base64 image as IMAGE_TOKENS, without reading its data", () => {
    const big: Message = {
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image", mediaType: "image/png", data: text(5_000_000, "A") },
      ],
    };
    expect(estimateMessageTokens(big)).toBe(tokensOf(13) + IMAGE_TOKENS);
    expect(IMAGE_TOKENS).toBeLessThan(10_000);

    const untouchable = { type: "image", mediaType: "image/png" } as ImagePart;
    Object.defineProperty(untouchable, "data", {
      get: () => {
        throw new Error("image data was read");
      },
    });
    expect(estimateMessageTokens({ role: "user", content: [untouchable, untouchable] })).toBe(
      tokensOf(0) + 2 * IMAGE_TOKENS,
    );
  });

  it("counts a file part like an image: IMAGE_TOKENS, whatever its size or source, its data never read", () => {
    const file = (source: FilePart["source"]): FilePart => ({ type: "file", mediaType: "application/pdf", source });
    const untouchable = { type: "data" } as FilePart["source"];
    Object.defineProperty(untouchable, "data", {
      get: () => {
        throw new Error("file data was read");
      },
    });
    const message: Message = {
      role: "user",
      content: [
        { type: "text", text: "summarise" },
        file({ type: "data", data: text(5_000_000, "A") }),
        file({ type: "data", data: new Uint8Array(1_000_000) }),
        file({ type: "url", url: "https://x.test/a.pdf" }),
        file({ type: "file_id", fileId: "file-1" }),
        file(untouchable),
      ],
    };
    expect(estimateMessageTokens(message)).toBe(tokensOf(9) + 5 * IMAGE_TOKENS);
  });

  it("counts a tool call as its name plus the JSON of its args", () => {
    const args = {
      path: "src/a.ts",
      lines: [1, 2.5, -3],
      deep: { ok: true, no: false, none: null, list: [] },
      empty: {},
    };
    const message: Message = { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "read_file", args }] };
    expect(estimateMessageTokens(message)).toBe(tokensOf("read_file".length + JSON.stringify(args).length));
  });

  it("leaves out what JSON leaves out, and survives a cyclic args object", () => {
    const args = { keep: "x", gone: undefined, list: [undefined, 1] };
    const message: Message = { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "t", args }] };
    expect(estimateMessageTokens(message)).toBe(tokensOf(1 + JSON.stringify(args).length));

    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const looped: Message = { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "t", args: cyclic }] };
    expect(Number.isFinite(estimateMessageTokens(looped))).toBe(true);
  });

  it("counts tool results as the text the model receives: strings as is, anything else as JSON", () => {
    const [, results] = exchange(["c1"], "read_file", text(41));
    expect(estimateMessageTokens(results)).toBe(tokensOf(41));

    const result = { rows: [{ id: 1, name: "a" }], total: 1 };
    const json: Message = {
      role: "tool",
      content: [
        { type: "tool_result", toolCallId: "c1", name: "q", result },
        { type: "tool_result", toolCallId: "c2", name: "q", result: "abc" },
      ],
    };
    expect(estimateMessageTokens(json)).toBe(tokensOf(JSON.stringify(result).length + 3));
  });

  it("counts thinking text and not its signature", () => {
    const message: Message = {
      role: "assistant",
      content: [
        { type: "thinking", text: text(12), signature: text(10_000, "s") },
        { type: "text", text: "done" },
      ],
    };
    expect(estimateMessageTokens(message)).toBe(tokensOf(16));
  });

  it("counts a thinking part's stored metadata (a reasoning item sent back as text) as its JSON", () => {
    const metadata = { openaiResponses: { item: { id: "rs_1", type: "reasoning", encrypted_content: text(40_000) } } };
    const message: Message = {
      role: "assistant",
      content: [
        { type: "thinking", text: text(12), providerMetadata: metadata },
        { type: "text", text: "done" },
      ],
    };
    expect(estimateMessageTokens(message)).toBe(tokensOf(16 + JSON.stringify(metadata).length));
    // So history pruning sees it: a turn that carries 40 KB of reasoning goes before the latest one.
    const history: Message[] = [user("First"), message, user("Second")];
    expect(pruneHistory(history, { maxTokens: 1_000 }).messages).toEqual([user("Second")]);
  });

  it("returns a whole number that grows with the content", () => {
    const small = estimateMessageTokens(user(text(100)));
    const large = estimateMessageTokens(user(text(1_000)));
    expect(Number.isInteger(small)).toBe(true);
    expect(large).toBeGreaterThan(small);
  });
});

describe("estimateTokens", () => {
  it("sums the messages and adds the system prompt as one more message", () => {
    const messages: Message[] = [user(text(10)), ...exchange(["c1", "c2"]), answer(text(7))];
    const sum = messages.reduce((total, message) => total + estimateMessageTokens(message), 0);
    expect(estimateTokens(messages)).toBe(sum);
    expect(estimateTokens(messages, text(9))).toBe(sum + tokensOf(9));
  });

  it("counts nothing for an empty history and an absent or empty system prompt", () => {
    expect(estimateTokens([])).toBe(0);
    expect(estimateTokens([], "")).toBe(0);
    expect(estimateTokens([], "abcd")).toBe(tokensOf(4));
  });
});

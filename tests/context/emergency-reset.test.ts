import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { InvalidArgumentError, type Message } from "@agentry/core";
import { CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, estimateTokens } from "../../src/context/estimate-tokens.js";
import {
  EMERGENCY_CONTEXT_LIMIT,
  RESET_SUMMARY_MAX_CHARS,
  needsEmergencyReset,
  summarizeForReset,
} from "../../src/context/emergency-reset.js";
import { wrapSystemMessage } from "../../src/messages/system-message.js";
import { answer, exchange, text, user } from "./helpers.js";

/** A user message whose estimate is exactly `tokens`. */
const sizedUser = (tokens: number): Message => user(text((tokens - MESSAGE_OVERHEAD_TOKENS) * CHARS_PER_TOKEN));

describe("needsEmergencyReset", () => {
  it("defaults to a 200,000-token limit and resets at it, not below", () => {
    expect(EMERGENCY_CONTEXT_LIMIT).toBe(200_000);
    expect(needsEmergencyReset([sizedUser(200_000)])).toEqual({
      needed: true,
      estimatedTokens: 200_000,
      limit: 200_000,
    });
    expect(needsEmergencyReset([sizedUser(199_999)])).toEqual({
      needed: false,
      estimatedTokens: 199_999,
      limit: 200_000,
    });
    expect(needsEmergencyReset([])).toEqual({ needed: false, estimatedTokens: 0, limit: 200_000 });
  });

  it("compares the estimate with a given limit using >=", () => {
    const history = [user("hello"), ...exchange(["c1"]), answer("done")];
    const estimate = estimateTokens(history);
    expect(needsEmergencyReset(history, { limit: estimate - 1 }).needed).toBe(true);
    expect(needsEmergencyReset(history, { limit: estimate }).needed).toBe(true);
    expect(needsEmergencyReset(history, { limit: estimate + 1 })).toEqual({
      needed: false,
      estimatedTokens: estimate,
      limit: estimate + 1,
    });
  });

  it("counts the system prompt", () => {
    const history = [sizedUser(100)];
    expect(needsEmergencyReset(history, { limit: 105 }).needed).toBe(false);
    expect(needsEmergencyReset(history, { limit: 105, system: text(4) })).toMatchObject({
      needed: true,
      estimatedTokens: 105,
    });
  });

  it("counts an image as a fixed estimate, not by its base64 size", () => {
    const photo: Message = {
      role: "user",
      content: [{ type: "image", mediaType: "image/jpeg", data: text(1_000_000, "A") }],
    };
    expect(needsEmergencyReset([photo]).needed).toBe(false);
  });

  it("rejects a limit that is not a positive number", () => {
    for (const limit of [0, -5, Number.NaN])
      expect(() => needsEmergencyReset([], { limit })).toThrow(InvalidArgumentError);
  });
});

describe("summarizeForReset", () => {
  const history: Message[] = [
    user("Please refactor the billing module"),
    ...exchange(["c1", "c2"], "read_file"),
    ...exchange(["c3"], "search"),
    answer("I split billing.ts into three files."),
    user(wrapSystemMessage("agent_42", "tests pass")),
    {
      role: "user",
      content: [
        { type: "text", text: "and this screenshot?" },
        { type: "image", mediaType: "image/png", data: text(50_000, "Q") },
      ],
    },
    ...exchange(["c4"], "read_file"),
    answer("The screenshot shows the new invoice layout."),
  ];

  it("holds the counts, tools, first and latest requests and the last answer", () => {
    const summary = summarizeForReset(history);
    expect(summary).toContain(`Messages: ${history.length}`);
    expect(summary).toContain("read_file x3, search x1");
    expect(summary).toContain('First request: "Please refactor the billing module"');
    expect(summary).toContain('"[from agent agent_42] tests pass"');
    expect(summary).toContain('"and this screenshot? [image]"');
    expect(summary).toContain('Last answer: "The screenshot shows the new invoice layout."');
    expect(summary).not.toContain("QQQQ");
  });

  it("is deterministic: the same messages give the same note", () => {
    expect(summarizeForReset(history)).toBe(summarizeForReset(structuredClone(history)));
  });

  it("cuts long requests and answers to short excerpts", () => {
    const summary = summarizeForReset([user(text(10_000, "r")), answer(text(10_000, "a"))]);
    expect(summary).toContain(`"${text(199, "r")}…"`);
    expect(summary).not.toContain(text(201, "r"));
    expect(summary).toContain(`"${text(199, "a")}…"`);
  });

  it("stays within RESET_SUMMARY_MAX_CHARS for any history", () => {
    expect(RESET_SUMMARY_MAX_CHARS).toBe(2_000);
    const messageArb: fc.Arbitrary<Message[]> = fc.oneof(
      fc.string({ maxLength: 3_000 }).map((content) => [user(content)]),
      fc.string({ maxLength: 3_000 }).map((content) => [answer(content)]),
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 300 }), fc.string({ maxLength: 500 }))
        .map(([tool, result]) => exchange(["c"], tool, result)),
    );
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 40 }), (parts) => {
        const summary = summarizeForReset(parts.flat());
        expect(summary.length).toBeLessThanOrEqual(RESET_SUMMARY_MAX_CHARS);
        expect(summarizeForReset(parts.flat())).toBe(summary);
      }),
      { numRuns: 200 },
    );
    const manyTools = Array.from({ length: 60 }, (_, i) => exchange([`c${i}`], `tool_${i}_${text(100, "n")}`)).flat();
    expect(summarizeForReset([user(text(5_000)), ...manyTools, answer(text(5_000))]).length).toBeLessThanOrEqual(
      RESET_SUMMARY_MAX_CHARS,
    );
  });
});

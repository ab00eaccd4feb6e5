import { describe, expect, it } from "vitest";
import { parsePlan } from "@agentry/core";
import { messageTypeOf } from "../../src/modes/message-type-of.js";
import { run } from "../loop/helpers.js";

const plan = { type: "plan", format_version: "1.0", goal: "Ship", steps: [{ step_number: 1, action: "Tag" }] };
const question = {
  type: "question",
  format_version: "1.0",
  question: "Delete it?",
  severity: "major",
  options: [{ label: "Yes", value: "yes" }],
};

describe("messageType (seed 002 rendering hint)", () => {
  it("is plan / question for valid JSON, bare or fenced, else text", () => {
    expect(messageTypeOf(JSON.stringify(plan))).toBe("plan");
    expect(messageTypeOf("Plan:\n```json\n" + JSON.stringify(plan) + "\n```")).toBe("plan");
    expect(messageTypeOf(JSON.stringify(question))).toBe("question");
    expect(messageTypeOf(JSON.stringify({ ...question, severity: "urgent" }))).toBe("text");
    expect(messageTypeOf(JSON.stringify({ ...plan, steps: [] }))).toBe("text");
    expect(messageTypeOf("Goal: ship\n1. tag\n2. release")).toBe("text");
    expect(messageTypeOf("Hello {world}")).toBe("text");
  });

  it("is set on every assistant message the loop makes", async () => {
    const { result } = await run({
      script: [{ text: JSON.stringify(question) }],
    });
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]).toMatchObject({ role: "assistant", messageType: "question" });
    const second = await run({
      tools: [],
      script: [
        { toolCalls: [{ name: "nope", args: {} }] },
        { text: "Let me look.", toolCalls: [{ name: "nope", args: {} }] },
        { text: "plain" },
      ],
    });
    // Tool calls and no text: tool_call; tool calls with text: the text's type; tool messages: tool_result.
    expect(second.result.messages.map((m) => `${m.role}:${(m.role !== "user" && m.messageType) || "-"}`)).toEqual([
      "assistant:tool_call",
      "tool:tool_result",
      "assistant:text",
      "tool:tool_result",
      "assistant:text",
    ]);
  });

  it("agrees with parsePlan on a plan JSON after prose without a fence", () => {
    for (const text of [
      `Plan: ${JSON.stringify(plan)}`,
      `Here is the plan:\n${JSON.stringify(plan, null, 2)}\n\nShall I go on?`,
    ]) {
      expect(parsePlan(text).ok, text).toBe(true);
      expect(messageTypeOf(text), text).toBe("plan");
    }
    const invalid = `Plan: ${JSON.stringify({ ...plan, steps: [] })}`;
    expect(parsePlan(invalid).ok).toBe(false);
    expect(messageTypeOf(invalid)).toBe("text");
    expect(messageTypeOf(`Question: ${JSON.stringify(question)}`)).toBe("question");
  });
});

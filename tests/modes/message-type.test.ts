import { describe, expect, it } from "vitest";
import { messageTypeOf } from "@agentry/core";
import { run } from "../loop/helpers.js";

const plan = { type: "plan", format_version: "1.0", goal: "Ship", steps: [{ step_number: 1, action: "Tag" }] };
const question = { type: "question", format_version: "1.0", question: "Delete it?", severity: "major", options: [{ label: "Yes", value: "yes" }] };

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
    const second = await run({ tools: [], script: [{ toolCalls: [{ name: "nope", args: {} }] }, { text: "plain" }] });
    const assistants = second.result.messages.filter((m) => m.role === "assistant");
    expect(assistants.map((m) => m.role === "assistant" && m.messageType)).toEqual(["text", "text"]);
  });
});

import { describe, expect, it, vi } from "vitest";
import { createAgentRegistry, type ModelRequest } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "../runtime/helpers.js";
import type * as ParsePlanModule from "../../src/modes/parse-plan.js";

// Every parse of a plan goes through this module's parsePlan: count the calls.
const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../src/modes/parse-plan.js", async (original) => {
  const real = await original<typeof ParsePlanModule>();
  return {
    ...real,
    parsePlan: (content: string) => {
      parses.count++;
      return real.parsePlan(content);
    },
  };
});

const planner = { agentId: "planner", displayName: "Planner", role: "planner" };
const plan = "Goal: tidy the notes\n\n1. Read the notes\n2. Merge duplicates";

describe("a create_artifact call's plan", () => {
  it("is parsed once: for the message's type, the tool's check and plan_ready", async () => {
    const script = (request: ModelRequest): FakeTurn =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "Submitted." }
        : {
            toolCalls: [
              { id: "c1", name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: plan } },
            ],
          };
    const { runtime, events, store } = makeRuntime(script, { registry: createAgentRegistry([planner]) });
    parses.count = 0;
    const result = await runtime.send({ agentId: "planner", content: "tidy" });
    expect(result.status).toBe("complete");
    // All three uses happened...
    expect(events.find((e) => e.type === "plan_ready")).toMatchObject({ plan: { goal: "tidy the notes" } });
    const records = await store.load(result.sessionId);
    const calling = records.find((r) => r.kind === "message" && r.message.role === "assistant");
    expect(calling?.kind === "message" && calling.message.role === "assistant" && calling.message.messageType).toBe(
      "plan",
    );
    // ...on one parse.
    expect(parses.count).toBe(1);
  });

  it("is parsed again for a new call with the same content (nothing is kept after the call)", async () => {
    let calls = 0;
    const script = (request: ModelRequest): FakeTurn => {
      if (request.messages.at(-1)!.role === "tool" && calls >= 2) return { text: "Submitted twice." };
      calls++;
      return {
        toolCalls: [
          { id: `c${calls}`, name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: plan } },
        ],
      };
    };
    const { runtime, events } = makeRuntime(script, { registry: createAgentRegistry([planner]) });
    parses.count = 0;
    await runtime.send({ agentId: "planner", content: "tidy" });
    expect(events.filter((e) => e.type === "plan_ready")).toHaveLength(2);
    expect(parses.count).toBe(2);
  });
});

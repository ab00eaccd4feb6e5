import { describe, expect, it } from "vitest";
import { AgentConfigError, createAgentRegistry } from "@agentry/core";
import type { ConfigProblem } from "../../src/errors/errors.js";
import { makeRuntime } from "../runtime/helpers.js";

function problemsOf(run: () => unknown): ConfigProblem[] {
  try {
    run();
  } catch (error) {
    if (AgentConfigError.isInstance(error)) return error.problems;
    throw error;
  }
  throw new Error("expected an AgentConfigError");
}

const agent = (chat: unknown) => ({ agentId: "a", displayName: "A", chat });

describe("AgentDefinition.chat: temperature, maxOutputTokens, providerOptions", () => {
  it("accepts valid settings, drops nulls and copies providerOptions deeply", () => {
    const providerOptions = {
      anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } },
      tags: ["a", 1, null, true],
    };
    const registry = createAgentRegistry({
      agents: [
        agent({ model: "m", temperature: 0.2, maxOutputTokens: 512, providerOptions }),
        { agentId: "b", displayName: "B", chat: { temperature: null, maxOutputTokens: null, providerOptions: null } },
      ],
    });
    const chat = registry.get("a")!.chat!;
    expect(chat).toEqual({ model: "m", temperature: 0.2, maxOutputTokens: 512, providerOptions });
    expect(chat.providerOptions).not.toBe(providerOptions);
    expect((chat.providerOptions as typeof providerOptions).anthropic).not.toBe(providerOptions.anthropic);
    expect(registry.get("b")!.chat).toEqual({});
    // The bounds themselves are valid.
    expect(() =>
      createAgentRegistry([
        agent({ temperature: 0 }),
        { ...agent({ temperature: 2, maxOutputTokens: 1 }), agentId: "c" },
      ] as never),
    ).not.toThrow();
  });

  it("names every bad value with its path", () => {
    const problems = problemsOf(() =>
      createAgentRegistry({
        agents: [
          agent({ temperature: 2.5, maxOutputTokens: 0, providerOptions: ["x"] }),
          { ...agent({ temperature: -0.1, maxOutputTokens: 1.5, providerOptions: "fast" }), agentId: "b" },
          {
            ...agent({
              temperature: "hot",
              maxOutputTokens: Number.POSITIVE_INFINITY,
              providerOptions: { when: new Date(0) },
            }),
            agentId: "c",
          },
          { ...agent({ temperature: Number.NaN, providerOptions: { f: () => 1, n: Number.NaN } }), agentId: "d" },
        ],
      }),
    );
    const paths = problems.map((p) => p.path).sort();
    expect(paths).toEqual([
      "agents[0].chat.maxOutputTokens",
      "agents[0].chat.providerOptions",
      "agents[0].chat.temperature",
      "agents[1].chat.maxOutputTokens",
      "agents[1].chat.providerOptions",
      "agents[1].chat.temperature",
      "agents[2].chat.maxOutputTokens",
      "agents[2].chat.providerOptions",
      "agents[2].chat.temperature",
      "agents[3].chat.providerOptions",
      "agents[3].chat.temperature",
    ]);
    const message = (path: string) => problems.find((p) => p.path === path)?.message;
    expect(message("agents[0].chat.temperature")).toBe("must be between 0 and 2, got number 2.5");
    expect(message("agents[1].chat.maxOutputTokens")).toBe("must be a positive whole number, got number 1.5");
    expect(message("agents[2].chat.temperature")).toBe('expected number, got string "hot"');
    expect(message("agents[2].chat.providerOptions")).toMatch(/^must be a JSON object/);
  });

  it("rejects providerOptions nested deeper than the bound (a hostile config cannot blow the stack)", () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 10_000; i++) deep = { deeper: deep };
    const problems = problemsOf(() => createAgentRegistry([agent({ providerOptions: deep })] as never));
    expect(problems.map((p) => p.path)).toEqual(["agents[0].chat.providerOptions"]);
    let shallow: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 20; i++) shallow = { deeper: shallow };
    expect(() => createAgentRegistry([agent({ providerOptions: shallow })] as never)).not.toThrow();
  });

  it("sends the agent's settings on every model call of its turns, sub-tasks included, and nothing for other agents", async () => {
    const { runtime, provider } = makeRuntime(
      [
        { toolCalls: [{ id: "t1", name: "run_subtask", args: { title: "look", instructions: "Look it up." } }] },
        { text: "found" },
        { text: "done" },
        { text: "plain" },
      ],
      {
        registry: createAgentRegistry([
          {
            agentId: "tuned",
            displayName: "Tuned",
            chat: { temperature: 0.3, maxOutputTokens: 256, providerOptions: { reasoning_effort: "low" } },
          },
          { agentId: "plain", displayName: "Plain" },
        ]),
      },
    );
    await runtime.send({ agentId: "tuned", content: "go" });
    await runtime.send({ agentId: "plain", content: "go" });
    expect(provider.calls).toHaveLength(4);
    for (const call of provider.calls.slice(0, 3)) {
      expect(call.temperature).toBe(0.3);
      expect(call.maxOutputTokens).toBe(256);
      expect(call.providerOptions).toEqual({ reasoning_effort: "low" });
    }
    const plain = provider.calls[3]!;
    expect("temperature" in plain || "maxOutputTokens" in plain || "providerOptions" in plain).toBe(false);
  });
});

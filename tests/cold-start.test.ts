import { describe, expect, it, vi } from "vitest";
import type * as zod from "zod";

// Cold start: importing the core builds no zod schema (zod 4 compiles each kind of schema on its
// first use: the plan, question and agent definition schemas cost about 20 ms at import). The
// exported schemas are `z.lazy` wrappers whose schema is built on first use.
const zodCalls = vi.hoisted(() => [] as string[]);

vi.mock("zod", async (importOriginal) => {
  const actual = await importOriginal<typeof zod>();
  const z = new Proxy(actual.z, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        zodCalls.push(String(key));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ...actual, z };
});

describe("cold start", () => {
  it("importing @agentry/core builds no zod schema: the exported schemas are built on first use", async () => {
    const core = await import("../src/index.js");
    const { toJsonSchema } = await import("../src/schema/to-json-schema.js");
    const { agentDefinitionSchema } = await import("../src/agents/agent-schema.js");
    expect(zodCalls.filter((name) => name !== "lazy")).toEqual([]);

    // First use builds them, and they behave like eager schemas.
    const plan = { type: "plan", format_version: "1.0", goal: "g", steps: [{ step_number: 1, action: "a" }] };
    expect(core.PlanSchema.safeParse(plan).success).toBe(true);
    expect(core.PlanSchema.safeParse({ ...plan, steps: [{ step_number: 2, action: "a" }] }).success).toBe(false);
    expect(zodCalls).toContain("object");
    const schema = toJsonSchema(agentDefinitionSchema);
    expect(schema).toMatchObject({ type: "object", additionalProperties: false, required: ["agentId", "displayName"] });
    expect(() => core.createAgentRegistry([{ agentId: "a", displayName: "A", toolAlowlist: ["x"] } as never])).toThrow(
      /did you mean "toolAllowlist"/,
    );
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { PlanSchema } from "@agentry/core";
import { agentDefinitionSchema } from "../../src/agents/agent-schema.js";
import { toJsonSchema } from "../../src/schema/to-json-schema.js";

describe("toJsonSchema", () => {
  it("returns a plain JSON Schema unchanged (same object)", () => {
    const schema = { type: "object", properties: {} };
    expect(toJsonSchema(schema)).toBe(schema);
  });

  it("converts zod 4 on the input side: defaulted fields are optional", () => {
    const schema = toJsonSchema(z.object({ a: z.string(), b: z.number().default(2) }));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(["a"]);
  });

  it("converts zod 3 to draft 7 with inlined definitions (no $ref)", () => {
    const shared = z3.object({ id: z3.string() });
    const schema = toJsonSchema(z3.object({ first: shared, second: shared }));
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(JSON.stringify(schema)).not.toContain("$ref");
    expect(schema.properties).toMatchObject({ second: { type: "object", properties: { id: { type: "string" } } } });
  });

  it("represents what JSON Schema cannot express as an unconstrained schema instead of throwing (zod 4)", () => {
    const schema = toJsonSchema(z.object({ when: z.date() }));
    expect(schema.properties).toHaveProperty("when");
  });

  it("converts the core's lazy schemas (built on first use) like the schemas behind them", () => {
    // That nothing builds them at import is counted in bench/shape-checks.ts.
    const plan = { type: "plan", format_version: "1.0", goal: "g", steps: [{ step_number: 1, action: "a" }] };
    expect(PlanSchema.safeParse(plan).success).toBe(true);
    expect(PlanSchema.safeParse({ ...plan, steps: [{ step_number: 2, action: "a" }] }).success).toBe(false);
    expect(toJsonSchema(agentDefinitionSchema)).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["agentId", "displayName"],
    });
  });
});

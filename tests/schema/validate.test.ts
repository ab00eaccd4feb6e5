import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { createJsonSchemaValidator, createZodValidator } from "../../src/schema/validate.js";

describe("createJsonSchemaValidator", () => {
  it("reports the leaf cause, not only the failing parent keyword", () => {
    const validate = createJsonSchemaValidator({
      type: "object",
      properties: { user: { type: "object", properties: { age: { type: "integer" } } } },
    });
    const result = validate({ user: { age: "old" } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(/^\/user\/age: /);
    expect(result.message).not.toContain("does not match schema");
  });

  it("caps the number of reported problems at eight", () => {
    const properties = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, { type: "string" }]));
    const validate = createJsonSchemaValidator({ type: "object", properties });
    const result = validate(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, i])));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message.split("; ")).toHaveLength(8);
  });

  it("honours the draft named by $schema (draft 7 tuple `items`)", () => {
    const validate = createJsonSchemaValidator({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: [{ type: "string" }, { type: "number" }],
    });
    expect(validate(["a", 1]).ok).toBe(true);
    expect(validate(["a", "b"]).ok).toBe(false);
  });

  it("explains a false subschema as an unexpected property", () => {
    const validate = createJsonSchemaValidator({ type: "object", properties: {}, additionalProperties: false });
    expect(validate({ extra: 1 })).toEqual({
      ok: false,
      message: "/extra: not allowed here (unexpected property or item)",
    });
  });
});

describe("createZodValidator", () => {
  it("returns the transformed value (zod 4)", () => {
    const validate = createZodValidator(z.object({ n: z.string().transform((s) => s.length) }));
    expect(validate({ n: "abcd" })).toEqual({ ok: true, value: { n: 4 } });
  });

  it("formats zod 3 issues with their paths", () => {
    const validate = createZodValidator(z3.object({ list: z3.array(z3.number()) }));
    expect(validate({ list: [1, "x"] })).toEqual({ ok: false, message: "/list/1: Expected number, received string" });
  });
});

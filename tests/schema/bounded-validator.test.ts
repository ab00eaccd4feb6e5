import { describe, expect, it } from "vitest";
import { createOutsideSchemaValidator } from "../../src/schema/outside-schema-validator.js";
import { createModelSchemaValidator } from "../../src/schema/model-schema-validator.js";
import { SchemaLimitError } from "../../src/schema/schema-limit-error.js";

describe("validators for schemas from outside", () => {
  it("refuses a schema over maxSchemaBytes, naming its size", () => {
    const schema = { type: "object", properties: { s: { type: "string", description: "x".repeat(200) } } };
    expect(() =>
      createOutsideSchemaValidator(schema, { maxSchemaBytes: 100, maxValueBytes: 1_000, subject: "the arguments" }),
    ).toThrow(SchemaLimitError);
    expect(() =>
      createOutsideSchemaValidator(schema, { maxSchemaBytes: 100, maxValueBytes: 1_000, subject: "the arguments" }),
    ).toThrow(/the schema is \d+ bytes; at most 100/);
  });

  it("refuses a value whose validation would visit more than 1,000,000 (subschema, value) pairs, before validating", () => {
    const branches = Array.from({ length: 40 }, (_, i) => ({
      type: "object",
      properties: { [`k${i}`]: { type: "string" } },
      required: [`k${i}`],
    }));
    const validate = createModelSchemaValidator(
      { type: "array", items: { anyOf: branches } },
      { maxValueBytes: 10_000_000 },
    );
    const value = Array.from({ length: 30_000 }, () => ({ k39: "x" }));
    expect(validate(value)).toEqual({
      ok: false,
      message: expect.stringMatching(/too large to check against this schema \(over 1000000 steps\)/),
    });
    expect(validate(value.slice(0, 100))).toEqual({ ok: true, value: value.slice(0, 100) });
  });

  it("tests each pattern only on the strings it applies to", () => {
    const validate = createOutsideSchemaValidator(
      { type: "object", properties: { id: { type: "string", pattern: "^[a-z]+$" }, body: { type: "string" } } },
      { maxValueBytes: 100_000_000, subject: "the arguments" },
    );
    // 10 MB in a field without a pattern costs no regex steps.
    expect(validate({ id: "abc", body: "B".repeat(10_000_000) }).ok).toBe(true);
    expect(validate({ id: "ABC", body: "b" })).toEqual({
      ok: false,
      message: "/id: does not match the pattern required here",
    });
  });
});

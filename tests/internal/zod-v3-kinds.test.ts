import { describe, expect, it } from "vitest";
import { ZodFirstPartyTypeKind as real } from "zod/v3";
import { ZodFirstPartyTypeKind as standIn } from "../../src/internal/zod-v3-kinds.js";

// The bundled zod-to-json-schema reads type names from this stand-in instead of zod/v3.
describe("zod/v3 type-name stand-in", () => {
  it("gives the same value as zod/v3 for every type name", () => {
    const names = Object.keys(real);
    expect(names.length).toBeGreaterThan(30);
    for (const name of names) expect(standIn[name]).toBe((real as Record<string, string>)[name]);
  });
});

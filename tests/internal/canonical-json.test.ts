import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/internal/canonical-json.js";

/** The same value with every object's keys in reverse order. */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) {
    const item = reorder((value as Record<string, unknown>)[key]);
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

describe("canonicalJson", () => {
  it("is valid JSON of the same value, whatever the key order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reorder(value))).toBe(text);
      }),
    );
  });

  it("gives equal texts exactly for equal JSON values", () => {
    const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(canonicalJson(a) === canonicalJson(b)).toBe(isDeepStrictEqual(json(a), json(b)));
      }),
    );
    // Equal values made apart (and in another key order) are found equal too.
    fc.assert(
      fc.property(fc.jsonValue(), (a) => {
        expect(canonicalJson(json(reorder(a)))).toBe(canonicalJson(a));
      }),
    );
  });

  it("sorts keys by UTF-16 code units, drops undefined members, nulls what JSON cannot hold in arrays", () => {
    expect(canonicalJson({ b: 1, a: [undefined, () => 1, Number.NaN], é: true, Z: null, c: undefined })).toBe(
      '{"Z":null,"a":[null,null,null],"b":1,"é":true}',
    );
    expect(canonicalJson(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
    expect(canonicalJson(undefined)).toBe("null");
  });

  it("throws for cycles and bigints", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/bigint/);
    // A repeated (not cyclic) object is fine.
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });
});

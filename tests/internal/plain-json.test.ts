import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "@agentry/core";
import { copyPlainJson, toPlainJson } from "../../src/internal/plain-json.js";

const viaJson = (value: unknown): unknown => {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
};

/** Values JSON handles in its own ways: toJSON, boxed primitives, -0, NaN, undefined, functions, symbols, `__proto__` keys. */
const oddities = fc.constantFrom<unknown>(
  new Date(0),
  { toJSON: (key: string) => `key=${key}` },
  Object(1),
  Object("s"),
  Object(false),
  -0,
  NaN,
  Infinity,
  undefined,
  () => 1,
  Symbol("s"),
  JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
  new Map([[1, 2]]),
  new Uint8Array([1, 2]),
  Object.create({ inherited: 1 }),
);

describe("toPlainJson", () => {
  it("equals JSON.parse(JSON.stringify(value)) for any value", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything({ withBoxedValues: true, withNullPrototype: true, withSparseArray: true }), fc.array(oddities), fc.dictionary(fc.string(), oddities)), (value) => {
        const expected = viaJson(value);
        if (expected === undefined) expect(() => toPlainJson(value, "x")).toThrow(InvalidArgumentError);
        else expect(toPlainJson(value, "x")).toStrictEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it("keeps a __proto__ key as data and never changes the prototype", () => {
    const copy = toPlainJson(JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>, "x");
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__"]);
    const again = copyPlainJson(copy);
    expect(Object.getPrototypeOf(again)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(again).toStrictEqual(copy);
  });

  it("names what cannot be JSON: bigint, cycles, a bare function", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toPlainJson({ n: 1n }, "append: records[0]")).toThrow(/append: records\[0\]: must be plain JSON data/);
    expect(() => toPlainJson(cyclic, "x")).toThrow(InvalidArgumentError);
    expect(() => toPlainJson(() => 1, "x")).toThrow(InvalidArgumentError);
    // A shared (not cyclic) object is fine.
    const shared = { a: 1 };
    expect(toPlainJson({ x: shared, y: shared }, "x")).toEqual({ x: { a: 1 }, y: { a: 1 } });
  });
});

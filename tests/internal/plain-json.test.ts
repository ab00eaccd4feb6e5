import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "@agentry/core";
import { copyPlainJson, equalsPlainJson, toPlainJson } from "../../src/internal/plain-json.js";

describe("toPlainJson and copyPlainJson", () => {
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

describe("equalsPlainJson", () => {
  const plain = JSON.parse('{"a":[1,"x",{"b":null}],"c":true}') as unknown;
  it("is true for plain data equal to the parsed value, in any key order", () => {
    expect(equalsPlainJson({ a: [1, "x", { b: null }], c: true }, plain)).toBe(true);
    expect(equalsPlainJson({ c: true, a: [1, "x", { b: null }] }, plain)).toBe(true);
  });
  it("is false for any difference and for whatever JSON would transform", () => {
    for (const value of [
      { a: [1, "x", { b: null }] },
      { a: [1, "x", { b: null }], c: true, d: 1 },
      { a: [1, "x", { b: 0 }], c: true },
      { a: [1, "x", { b: null }, 2], c: true },
      { a: [1, "x", { b: null }], c: true, u: undefined },
      { a: [1, "x", { b: null }], c: true, toJSON: () => 1 },
      { a: { 0: 1, 1: "x", 2: { b: null }, length: 3 }, c: true },
      new Map(),
      "x",
      null,
    ])
      expect(equalsPlainJson(value, plain)).toBe(false);
    expect(equalsPlainJson(new Date(0), JSON.parse(JSON.stringify(new Date(0))))).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "@agentry/core";
import { copyPlainJson, toPlainJson } from "../../src/internal/plain-json.js";

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

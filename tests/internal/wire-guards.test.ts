import { describe, expect, it } from "vitest";
import {
  arrayField,
  asRecord,
  countField,
  isRecord,
  recordField,
  stringField,
} from "../../src/internal/wire-guards.js";

describe("wire guards", () => {
  it("isRecord / asRecord accept plain objects only", () => {
    for (const value of [null, undefined, 1, "x", true, [], [1]]) {
      expect(isRecord(value)).toBe(false);
      expect(asRecord(value)).toBeUndefined();
    }
    const object = { a: 1 };
    expect(isRecord(object)).toBe(true);
    expect(asRecord(object)).toBe(object);
  });

  it("field readers return the field only when it has the expected type, and accept a missing record", () => {
    const record = { s: "x", n: 3, o: { k: 1 }, a: [1], neg: -1, nan: Number.NaN, inf: Infinity, ns: "3" };
    expect(stringField(record, "s")).toBe("x");
    expect(stringField(record, "n")).toBeUndefined();
    expect(recordField(record, "o")).toEqual({ k: 1 });
    expect(recordField(record, "a")).toBeUndefined();
    expect(arrayField(record, "a")).toEqual([1]);
    expect(arrayField(record, "o")).toBeUndefined();
    expect(countField(record, "n")).toBe(3);
    for (const key of ["neg", "nan", "inf", "ns", "missing"]) expect(countField(record, key)).toBeUndefined();
    expect(stringField(undefined, "s")).toBeUndefined();
    expect(recordField(undefined, "o")).toBeUndefined();
    expect(arrayField(undefined, "a")).toBeUndefined();
    expect(countField(undefined, "n")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import {
  isJsonTextTooDeep,
  MAX_JSON_DEPTH,
  MAX_JSON_VALUES,
  readOutsideJson,
} from "../../src/internal/outside-json.js";

/** `[[...[]...]]` with `levels` arrays. */
const nested = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels)) as unknown;

describe("readOutsideJson", () => {
  it("copies plain values with JSON's rules (toJSON, undefined and functions dropped, non-finite numbers null)", () => {
    const value = {
      at: new Date(0),
      gone: undefined,
      fn: () => 1,
      list: [undefined, Number.NaN, 1, "x", true, null],
      nested: { a: [{}] },
    };
    const read = readOutsideJson(value);
    expect(read).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
    expect(read.ok && read.value).not.toBe(value);
    // toJSON is applied once, not again to what it returns (an endless chain of them would never end).
    const chained = { toJSON: () => ({ a: 1, toJSON: () => ({ toJSON: "again" }) }) };
    expect(readOutsideJson(chained)).toEqual({ ok: true, value: JSON.parse(JSON.stringify(chained)) });
    const endless = (): unknown => ({ toJSON: endless });
    expect(readOutsideJson(endless())).toEqual({ ok: true, value: {} });
  });

  it("accepts 64 levels of nesting and refuses 65 without recursing further; a cycle is too deep", () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(readOutsideJson(nested(64))).toEqual({ ok: true, value: nested(64) });
    expect(readOutsideJson(nested(65))).toMatchObject({ ok: false, problem: "too_deep" });
    expect(readOutsideJson(nested(100_000))).toMatchObject({
      ok: false,
      problem: "too_deep",
      detail: expect.stringContaining("64 levels"),
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(readOutsideJson(cycle)).toMatchObject({ ok: false, problem: "too_deep" });
  });

  it("refuses values that cannot be read: throwing traps and getters, a throwing toJSON, a bigint", () => {
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    const getter = Object.defineProperty({}, "a", {
      enumerable: true,
      get: () => {
        throw new Error("getter");
      },
    });
    const toJSON = {
      toJSON: () => {
        throw new Error("toJSON");
      },
    };
    for (const value of [
      trap,
      getter,
      toJSON,
      { n: 1n },
      [
        new Proxy([], {
          get: () => {
            throw new Error("x");
          },
        }),
      ],
    ]) {
      expect(readOutsideJson(value)).toMatchObject({ ok: false, problem: "unreadable" });
    }
  });

  it("stops after a million values (a getter that makes up new objects on every read)", () => {
    // 1,000 keys, each a getter making a new object of 1,000 such keys, three levels down: 10^9 values.
    const make = (levels: number): unknown => {
      if (levels === 0) return 0;
      const object = {};
      for (let i = 0; i < 1000; i++)
        Object.defineProperty(object, `k${i}`, { enumerable: true, get: () => make(levels - 1) });
      return object;
    };
    expect(readOutsideJson(make(3))).toMatchObject({ ok: false, problem: "too_many_values" });
    expect(readOutsideJson(new Array(MAX_JSON_VALUES).fill(0))).toMatchObject({
      ok: false,
      problem: "too_many_values",
    });
  });
});

describe("isJsonTextTooDeep", () => {
  it("counts brackets outside strings only", () => {
    expect(isJsonTextTooDeep("[".repeat(64) + "]".repeat(64))).toBe(false);
    expect(isJsonTextTooDeep("[".repeat(65) + "]".repeat(65))).toBe(true);
    expect(isJsonTextTooDeep(JSON.stringify({ s: "[".repeat(1000) + '\\"[' }))).toBe(false);
    expect(isJsonTextTooDeep('{"a":'.repeat(70) + "1" + "}".repeat(70))).toBe(true);
  });
});

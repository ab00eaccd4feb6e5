import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/internal/sha256.js";

const reference = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("sha256Hex", () => {
  it("equals node:crypto's SHA-256 for any bytes, across block boundaries", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(reference(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it("equals it at every padding edge (55, 56, 63, 64 bytes ...) and for the known vectors", () => {
    for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 2048, 4097]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31 + 7) & 0xff);
      expect(sha256Hex(bytes)).toBe(reference(bytes));
    }
    expect(sha256Hex(new TextEncoder().encode("abc"))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const file = new URL("../fixtures/ai-sdk-provider-v4/index.d.ts", import.meta.url);

describe("the vendored V4 specification types (tests/fixtures/README.md)", () => {
  it("are @ai-sdk/provider 4.0.38's dist/index.d.ts, unchanged", () => {
    const sha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
    expect(sha256).toBe("2a6b5e8749a9662e83a5ebacb98d7717c90e9073e7be594e946c456662cdd283");
  });
});

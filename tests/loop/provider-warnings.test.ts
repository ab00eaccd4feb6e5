import { describe, expect, it } from "vitest";
import type { ModelEvent, Provider } from "@agentry/core";
import { ofType, run } from "./helpers.js";

/** A provider that reports `count` notes about the request, then answers. */
function noisy(count: number, message: unknown): Provider {
  return {
    id: "noisy",
    async *stream(): AsyncGenerator<ModelEvent> {
      for (let i = 0; i < count; i++) yield { type: "warning", code: `code_${i}`, message } as ModelEvent;
      yield { type: "text_delta", text: "ok" };
      yield { type: "finish", reason: "stop" };
    },
  };
}

describe("a provider's warnings about a request", () => {
  it("become warning events, bounded in number and size", async () => {
    const { events, result } = await run({ provider: noisy(40, "x".repeat(5_000)) });
    const warnings = ofType(events, "warning");
    expect(warnings).toHaveLength(16);
    expect(warnings[0]).toMatchObject({ code: "code_0", depth: 0, parentId: null });
    expect(warnings.every((w) => w.message.length <= 1_000)).toBe(true);
    expect(result).toMatchObject({ status: "complete", text: "ok" });
  });

  it("a message that is not a string is reported as its type, never read", async () => {
    const { events } = await run({ provider: noisy(1, { toString: () => "secret" }) });
    expect(ofType(events, "warning")).toMatchObject([{ code: "code_0", message: "object" }]);
  });
});

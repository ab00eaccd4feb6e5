import { describe, expect, it } from "vitest";
import type { Message } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { runLoop } from "../../src/loop/run-unified-agent-loop.js";

/** A history well over a 1,500-token `maxHistoryTokens` by the loop's own estimate. */
const big = "word ".repeat(2_000);
const history: Message[] = [
  { role: "user", content: `old question ${big}` },
  { role: "assistant", content: [{ type: "text", text: `old answer ${big}` }] },
  { role: "user", content: "latest question" },
];

async function sentWith(internals: Parameters<typeof runLoop>[1]): Promise<number> {
  const provider = createFakeProvider([{ text: "ok" }]);
  for await (const _ of runLoop(
    { provider, model: "fake", systemPrompt: "s", history, tools: [], budget: { maxHistoryTokens: 1_500 } },
    internals,
  ))
    void _;
  return provider.calls[0]!.messages.length;
}

describe("the runtime's history estimate (an internal loop option)", () => {
  it("starts the loop's running estimate from the caller's sum instead of walking the history", async () => {
    // Without one, the loop estimates the history itself and prunes it.
    expect(await sentWith({})).toBe(1);
    // The caller's sum is trusted as given: a (deliberately wrong) 0 means nothing to prune.
    expect(await sentWith({ historyTokens: 0 })).toBe(3);
  });
});

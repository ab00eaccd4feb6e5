import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openai } from "@agentry/core/openai";
import { createFakeProvider, recordProvider, replayProvider } from "@agentry/core/testing";
import { askBilling } from "./billing.js";
import { billingScript } from "./script.js";

const path = fileURLToPath(new URL("./cassettes/refund.jsonl", import.meta.url));

/**
 * The model behind the cassette: OpenAI when a key is set, else the scripted model (which is
 * how the committed cassette was made, so the example runs anywhere). In "replay" mode, the
 * default here, it is never called: the test runs offline, in CI, with no key.
 *
 * Record again after changing the agent:
 *   AGENTRY_CASSETTE_MODE=record npx vitest run examples/testing/cassette.test.ts
 */
const model = process.env.OPENAI_API_KEY ? openai() : createFakeProvider(billingScript);
const provider = () => recordProvider(model, { path, mode: "replay" });

describe("a recorded billing run, replayed from a committed cassette", () => {
  it("refunds a paid invoice after the approval", async () => {
    const { result, refunded } = await askBilling(provider(), "Please refund invoice 42.");
    expect(result.status).toBe("complete");
    expect(refunded).toEqual(["42"]);
    expect(result.text).toMatch(/42/);
  });

  it("fails with what changed when the agent asks something the cassette does not hold", async () => {
    // replayProvider only replays, whatever AGENTRY_CASSETTE_MODE says.
    const { result, refunded } = await askBilling(replayProvider({ path }), "Please refund invoice 43.");
    expect(result.status).toBe("error");
    expect(result.error?.message).toContain(
      'message 0 (user): content: "Please refund invoice 42." → "Please refund invoice 43."',
    );
    expect(refunded).toEqual([]);
  });
});

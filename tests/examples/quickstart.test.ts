import { describe, expect, it } from "vitest";
import { QUICKSTART_TEST_TIMEOUT_MS, runQuickstart } from "./run-quickstart.js";

describe("examples/quickstart.ts", () => {
  it(
    "runs offline on the scripted provider and prints the nested event stream",
    { timeout: QUICKSTART_TEST_TIMEOUT_MS },
    async () => {
      const out = await runQuickstart();
      expect(out).toMatch(/Using the bundled scripted provider \(offline/);
      expect(out).toMatch(/→ run_subtask\(.*Weather in Lisbon/);
      expect(out).toMatch(/^ {2}\[Weather in Oslo\] → get_weather\(\{"city":"Oslo"\}\)$/m);
      expect(out).toMatch(/^← run_subtask Lisbon: sunny, high of 24 °C\./m);
      expect(out).toMatch(/^assistant: Go to Lisbon/m);
      expect(out).toMatch(/^done: complete$/m);
      expect(out).toMatch(/6 model calls, 2 tool calls/);
    },
  );
});

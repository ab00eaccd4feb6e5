import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("examples/ai-sdk-model.ts", () => {
  it("runs an @ai-sdk/openai model through fromAiSdk against the local fake server, tool call included", async () => {
    const out = await runExample("ai-sdk-model.ts");
    expect(out).toMatch(/^Using @ai-sdk\/openai against the local fake OpenAI server \(offline\)\.$/m);
    expect(out).toMatch(/^→ get_weather\(\{"city":"Lisbon"\}\)$/m);
    expect(out).toMatch(/^assistant: It is sunny in Lisbon, 21 °C\.$/m);
    expect(out).toMatch(/^done: complete \(2 model calls, 150 in \/ 27 out tokens, provider openai\.chat\)$/m);
    // The agent's chat settings reached the wire through the AI SDK model.
    expect(out).toMatch(/^request settings: temperature 0\.2, max_tokens 300$/m);
  });
});

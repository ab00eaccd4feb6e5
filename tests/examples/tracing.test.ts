import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("examples/tracing.ts", () => {
  it("prints the span tree of a traced turn: invoke_agent > chat, execute_tool run_subtask > chat, execute_tool", async () => {
    const out = await runExample("tracing.ts");
    expect(out).toMatch(/^assistant: Your order A-17 is on its way with DHL\.$/m);
    const lines = out
      .split("\n")
      .filter((line) => /^\s*(invoke_agent|chat|execute_tool)/.test(line))
      .map((line) => line.replace(/^(\s*\S+ \S+).*$/, "$1"));
    expect(lines).toEqual([
      "invoke_agent Support",
      "  chat gpt-4.1-mini",
      "  execute_tool run_subtask",
      "    chat gpt-4.1-mini",
      "    execute_tool lookup_order",
      "    chat gpt-4.1-mini",
      "  chat gpt-4.1-mini",
    ]);
    expect(out).toMatch(
      /^invoke_agent Support .*conversation\.id="<session>" request\.model="gpt-4\.1-mini" usage\.input_tokens=960 usage\.output_tokens=81/m,
    );
    expect(out).toMatch(/^ {4}execute_tool lookup_order .*tool\.name="lookup_order"/m);
    expect(out).toMatch(/^7 spans, one trace: true$/m);
  });
});

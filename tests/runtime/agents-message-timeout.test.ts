import { describe, expect, it } from "vitest";
import { multiRuntime, toolResultOf } from "./multi-agent-helpers.js";

describe("agents_message timeout from the model", () => {
  it.each([1e10, 2 ** 31 / 1000 + 1])(
    "a timeout of %d s (over 2^31-1 ms) means no limit, not 'time out at once'",
    async (timeout) => {
      const { runtime } = multiRuntime({
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: JSON.stringify(toolResultOf(request, "agents_message")) }
            : {
                toolCalls: [{ name: "agents_message", args: { agentId: "slow", content: "take your time", timeout } }],
              },
        slow: () => ({ text: "finally done", delayMs: 30 }),
      });
      const result = await runtime.send({ agentId: "general", content: "go" });
      expect(JSON.parse(result.text)).toMatchObject({ mode: "sync", status: "complete", response: "finally done" });
      await runtime.close();
    },
  );
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type Message, type ModelEvent, type Provider } from "@agentry/core";
import { run, unmatchedStarts } from "./helpers.js";

type ToolMessage = Extract<Message, { role: "tool" }>;
const toolResultsOf = (messages: Message[]) =>
  messages.filter((m): m is ToolMessage => m.role === "tool").flatMap((m) => m.content);
const callsOf = (messages: Message[]) =>
  messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "tool_call") : []));

/** `{ v: { v: ... 1 } }` with `levels` objects. */
const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { v: value };
  return value;
};

function recorder() {
  const seen: unknown[] = [];
  const tool = defineTool({
    name: "keep",
    description: "keep",
    input: z.object({ v: z.unknown() }),
    execute: (input) => (seen.push(input), "kept"),
  });
  return { seen, tool };
}

/** A provider that sends one tool call with `args` as given (a custom provider may hand over anything), then "done". */
function rawArgsProvider(args: unknown): Provider {
  let call = 0;
  return {
    id: "raw",
    async *stream(): AsyncGenerator<ModelEvent> {
      if (call++ === 0) {
        yield { type: "tool_call", id: "c1", name: "keep", args };
        yield { type: "finish", reason: "tool_calls" };
      } else {
        yield { type: "text_delta", text: "done" };
        yield { type: "finish", reason: "stop" };
      }
    },
  };
}

describe("tool-call arguments from the provider", () => {
  it("runs a call nested 64 levels deep, and refuses one of 65 with an error result the model reads; the turn goes on", async () => {
    const { seen, tool } = recorder();
    const { result, events, provider } = await run({
      script: [
        {
          toolCalls: [
            { id: "ok", name: "keep", args: nested(64) },
            { id: "deep", name: "keep", args: nested(65) },
          ],
        },
        { text: "done" },
      ],
      tools: [tool],
    });
    expect(result.status).toBe("complete");
    expect(seen).toEqual([nested(64)]);
    const [kept, refused] = toolResultsOf(result.messages);
    expect(kept).toMatchObject({ toolCallId: "ok", result: "kept" });
    expect(refused).toMatchObject({ toolCallId: "deep", isError: true });
    expect(String(refused!.result)).toContain("nested deeper than 64 levels");
    // The model's next request carries the refusal, and the kept call is a placeholder, not the value.
    expect(JSON.stringify(provider.calls[1]!.messages)).toContain("nested deeper than 64 levels");
    expect(callsOf(result.messages).map((c) => c.args)).toEqual([
      nested(64),
      "[arguments dropped: nested deeper than 64 levels]",
    ]);
    expect(unmatchedStarts(events)).toEqual([]);
  });

  it("5,000 levels (30 KB, which JSON.parse accepts and JSON.stringify does not): refused, and nothing in the result or events holds it", async () => {
    const text = `{"v":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    for (const args of [JSON.parse(text) as unknown, text]) {
      const { seen, tool } = recorder();
      const { result, events } = await run({ provider: rawArgsProvider(args), tools: [tool] });
      expect(result.status).toBe("complete");
      expect(seen).toEqual([]);
      expect(String(toolResultsOf(result.messages)[0]!.result)).toContain("nested deeper than 64 levels");
      expect(() => JSON.stringify({ result, events })).not.toThrow();
    }
  });

  it("arguments that throw when read (a Proxy trap, a getter) become an error result for that call", async () => {
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    const { seen, tool } = recorder();
    const { result } = await run({ provider: rawArgsProvider(trap), tools: [tool] });
    expect(result.status).toBe("complete");
    expect(seen).toEqual([]);
    const [refused] = toolResultsOf(result.messages);
    expect(refused).toMatchObject({ isError: true, result: expect.stringContaining("could not be read as JSON") });
    expect(callsOf(result.messages)[0]!.args).toBe("[arguments dropped: not readable as JSON]");
  });

  it("keeps arguments as JSON would (the store's form): toJSON applied, undefined dropped", async () => {
    const { seen, tool } = recorder();
    const { result } = await run({
      provider: rawArgsProvider({ v: { at: new Date(0), gone: undefined } }),
      tools: [tool],
    });
    expect(seen).toEqual([{ v: { at: "1970-01-01T00:00:00.000Z" } }]);
    expect(callsOf(result.messages)[0]!.args).toEqual({ v: { at: "1970-01-01T00:00:00.000Z" } });
  });
});

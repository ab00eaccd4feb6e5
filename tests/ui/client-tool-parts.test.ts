import { describe, expect, it } from "vitest";
import { EventSchemas } from "@ag-ui/core/schemas";
import { readUIMessageStream, type UIMessage } from "ai";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type RuntimeEvent,
} from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { toAgUiEvents, toUIMessageStream } from "@agentry/core/ui";

/** A runtime whose model calls the client tool `geolocate` (streaming its arguments), then answers with its result. */
function setup() {
  const geolocate = defineTool({ name: "geolocate", description: "Where the user is", input: z.object({}) });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "assistant", displayName: "Assistant" }]),
    store: new MemorySessionStore(),
    providers: {
      fake: createFakeProvider((request) => {
        const last = request.messages.at(-1)!;
        if (last.role === "tool") return { text: `You are in ${JSON.stringify(last.content[0]!.result)}` };
        return { toolCalls: [{ id: "g1", name: "geolocate", args: {} }], streamToolArgs: true };
      }),
    },
    defaultModel: "fake",
    tools: [geolocate],
  });
  return runtime;
}

async function collect(events: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The message `useChat` builds from a stream, continuing `message` when given (as it does for a follow-up request). */
async function read(events: RuntimeEvent[], message?: UIMessage): Promise<UIMessage> {
  async function* replay() {
    yield* events;
  }
  let last: UIMessage | undefined;
  const options = message === undefined ? {} : { messageId: message.id };
  for await (const state of readUIMessageStream<UIMessage>({
    stream: toUIMessageStream(replay(), options),
    ...(message !== undefined && { message: structuredClone(message) }),
    onError: (error) => {
      throw error;
    },
  }))
    last = state;
  return last!;
}

describe("a client tool's call in the UI streams", () => {
  it("UI message stream: a static tool part (not dynamic) waiting for the client, then the same part gets the output", async () => {
    const runtime = setup();
    const first = await collect(runtime.stream({ agentId: "assistant", content: "where am I?" }));
    const asked = await read(first);
    const parts = asked.parts.filter((p) => p.type.startsWith("tool-") || p.type === "dynamic-tool");
    expect(parts).toMatchObject([{ type: "tool-geolocate", toolCallId: "g1", state: "input-available", input: {} }]);

    const resumed: RuntimeEvent[] = [];
    runtime.events.on("event", (event) => resumed.push(event));
    await runtime.submitToolResult("g1", { output: { city: "Lyon" } });
    const answered = await read(resumed, asked);
    const after = answered.parts.filter((p) => p.type.startsWith("tool-") || p.type === "dynamic-tool");
    // One part for the call, now with the client's output; the answer follows.
    expect(after).toMatchObject([
      { type: "tool-geolocate", toolCallId: "g1", state: "output-available", output: { city: "Lyon" } },
    ]);
    expect(answered.id).toBe(asked.id);
    expect(answered.parts.some((p) => p.type === "text" && p.text.includes("Lyon"))).toBe(true);
  });

  it("AG-UI: the call ends (TOOL_CALL_END) with no result and waits for the client (status awaiting_client)", async () => {
    const runtime = setup();
    const events = [];
    for await (const event of toAgUiEvents(runtime.stream({ agentId: "assistant", content: "where am I?" })))
      events.push(event);
    for (const event of events) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    const types = events.filter((e) => "toolCallId" in e && e.toolCallId === "g1").map((e) => e.type);
    expect(types).toContain("TOOL_CALL_START");
    expect(types).toContain("TOOL_CALL_END");
    expect(types).not.toContain("TOOL_CALL_RESULT");
    const custom = events.find((e) => e.type === "CUSTOM" && e.name === "agentry.client_tool_call");
    expect(custom).toMatchObject({ value: { toolCallId: "g1", name: "geolocate" } });
    const deltas = events.filter((e) => e.type === "STATE_DELTA");
    expect(JSON.stringify(deltas)).toContain("awaiting_client");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import type { ModelRequest, Provider } from "@agentry/core";
import {
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeResponsesServer,
  type FakeServer,
  type FakeTurn,
} from "@agentry/core/testing";
import {
  collect,
  randomPieces,
  sseBody,
  startServer,
  writePieces,
  type Collected,
  type TestServer,
} from "./helpers.js";

/**
 * Streamed tool-call arguments (`tool_call_start` / `tool_call_delta`) from every HTTP adapter:
 * hand-written wire streams served by a local server in random pieces, and the fake servers
 * replaying interleaved parallel calls.
 */

const SEEDS = [1, 2, 3];

/** Chat Completions chunks. */
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const chatCall = (c: Record<string, unknown>) => delta({ tool_calls: [c] });

/** What the adapter's stream said, as the steps a UI sees: `start id name`, `delta id text`, `call id`. */
const steps = (r: Collected) =>
  r.events.flatMap((e) =>
    e.type === "tool_call_start"
      ? [`start ${e.id} ${e.name}`]
      : e.type === "tool_call_delta"
        ? [`delta ${e.id} ${e.argsDelta}`]
        : e.type === "tool_call"
          ? [`call ${e.id}`]
          : [],
  );

/** Each streamed call's deltas joined, by id. */
const streamedText = (r: Collected) => Object.fromEntries(r.streamed.map((s) => [s.id, s.args]));

let server: TestServer;
/** Bodies served by the local server, by route. */
const bodies = new Map<string, string>();
beforeAll(async () => {
  server = await startServer(async (request, response) => {
    const [, seed, name] = request.url.split("/");
    response.writeHead(200, { "content-type": "text/event-stream" });
    await writePieces(response, randomPieces(new TextEncoder().encode(bodies.get(name!) ?? ""), Number(seed), 16));
  });
});
afterAll(() => server.close());

/** Serves `body` at a route of its own; returns a base URL per seed. */
function serve(name: string, body: string): (seed: number) => string {
  bodies.set(name, body);
  return (seed) => `${server.url}/${seed}/${name}`;
}

describe("openai() Chat Completions: streamed arguments", () => {
  const interleaved = serve(
    "chat-interleaved",
    sseBody(
      [
        chatCall({ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }),
        chatCall({ index: 1, id: "b", type: "function", function: { name: "g", arguments: '{"y"' } }),
        chatCall({ index: 0, function: { arguments: '{"x":' } }),
        chatCall({ index: 1, function: { arguments: ":2}" } }),
        chatCall({ index: 0, function: { arguments: "1}" } }),
        chatCall({ index: 0, function: { arguments: "" } }),
        delta({}, "tool_calls"),
      ],
      { done: true },
    ),
  );

  it.each(SEEDS)("streams interleaved parallel calls by index, before the complete calls (seed %i)", async (seed) => {
    const r = await collect(openai({ apiKey: "k", maxRetries: 0, baseURL: `${interleaved(seed)}/v1` }));
    expect(steps(r)).toEqual([
      "start a f",
      "start b g",
      'delta b {"y"',
      'delta a {"x":',
      "delta b :2}",
      "delta a 1}",
      "call a",
      "call b",
    ]);
    expect(streamedText(r)).toEqual({ a: '{"x":1}', b: '{"y":2}' });
    expect(r.calls.map((c) => c.args)).toEqual([{ x: 1 }, { y: 2 }]);
  });

  const lateName = serve(
    "chat-late-name",
    sseBody(
      [
        // No id at all (Gemini-compatible proxies), the name after the first fragment (vercel/ai#14722).
        chatCall({ index: 0, function: { arguments: '{"q":' } }),
        chatCall({ index: 0, function: { name: "", arguments: "" } }),
        chatCall({ index: 0, function: { name: "search", arguments: '"hi"' } }),
        chatCall({ index: 0, function: { arguments: "}" } }),
        delta({}, "tool_calls"),
      ],
      { done: true },
    ),
  );

  it("starts a call once its name is known, fragments before it as the first delta, under the id the call keeps", async () => {
    const r = await collect(openai({ apiKey: "k", maxRetries: 0, baseURL: `${lateName(2)}/v1` }));
    expect(r.streamed).toHaveLength(1);
    const [streamed] = r.streamed;
    expect(streamed).toEqual({ id: r.calls[0]!.id, name: "search", args: '{"q":"hi"}' });
    expect(r.calls).toEqual([{ id: streamed!.id, name: "search", args: { q: "hi" } }]);
    expect(steps(r)[0]).toBe(`start ${streamed!.id} search`);
  });

  const cut = serve(
    "chat-length",
    sseBody(
      [
        chatCall({ index: 0, id: "a", type: "function", function: { name: "f", arguments: '{"x":"lo' } }),
        delta({}, "length"),
      ],
      { done: true },
    ),
  );

  it("a call cut off by finish_reason length streamed but never completes", async () => {
    const r = await collect(openai({ apiKey: "k", maxRetries: 0, baseURL: `${cut(3)}/v1` }));
    expect(steps(r)).toEqual(["start a f", 'delta a {"x":"lo']);
    expect(r.calls).toEqual([]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "length" }]);
  });
});

describe("openai({ api: 'responses' }): streamed arguments", () => {
  const item = (id: string, callId: string, name: string) => ({
    id,
    type: "function_call",
    call_id: callId,
    name,
    arguments: "",
    status: "in_progress",
  });
  const argsDelta = (id: string, index: number, text: string) => ({
    type: "response.function_call_arguments.delta",
    item_id: id,
    output_index: index,
    delta: text,
  });
  const done = (id: string, callId: string, name: string, index: number, args: string) => ({
    type: "response.output_item.done",
    output_index: index,
    item: { ...item(id, callId, name), arguments: args, status: "completed" },
  });
  const interleaved = serve(
    "responses-interleaved",
    sseBody(
      [
        { type: "response.created", response: { status: "in_progress", output: [] } },
        { type: "response.output_item.added", output_index: 1, item: item("fc_1", "call_1", "f") },
        { type: "response.output_item.added", output_index: 2, item: item("fc_2", "call_2", "g") },
        argsDelta("fc_2", 2, '{"y":'),
        argsDelta("fc_1", 1, '{"x":'),
        argsDelta("fc_1", 1, "1}"),
        argsDelta("fc_2", 2, "2}"),
        done("fc_2", "call_2", "g", 2, '{"y":2}'),
        done("fc_1", "call_1", "f", 1, '{"x":1}'),
        // LM Studio: no delta, the arguments only when done.
        { type: "response.output_item.added", output_index: 3, item: item("fc_3", "call_3", "h") },
        done("fc_3", "call_3", "h", 3, '{"z":3}'),
        { type: "response.completed", response: { status: "completed", output: [] } },
      ],
      { eventNames: true },
    ),
  );

  it.each(SEEDS)("streams interleaved function-call items by item id (seed %i)", async (seed) => {
    const provider = openai({ api: "responses", apiKey: "k", maxRetries: 0, baseURL: `${interleaved(seed)}/v1` });
    const r = await collect(provider);
    expect(steps(r)).toEqual([
      "start call_1 f",
      "start call_2 g",
      'delta call_2 {"y":',
      'delta call_1 {"x":',
      "delta call_1 1}",
      "delta call_2 2}",
      "call call_2",
      "call call_1",
      "start call_3 h",
      'delta call_3 {"z":3}',
      "call call_3",
    ]);
    expect(r.calls.map((c) => c.args)).toEqual([{ y: 2 }, { x: 1 }, { z: 3 }]);
  });
});

describe("anthropic(): streamed arguments", () => {
  const blockStart = (index: number, id: string, name: string) => ({
    type: "content_block_start",
    index,
    content_block: { type: "tool_use", id, name, input: {} },
  });
  const json = (index: number, text: string) => ({
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json: text },
  });
  const body = (stop: "tool_use" | "max_tokens", closeLast: boolean) =>
    sseBody(
      [
        { type: "message_start", message: { usage: { input_tokens: 1, output_tokens: 1 } } },
        blockStart(0, "toolu_a", "f"),
        json(0, ""),
        blockStart(1, "toolu_b", "g"),
        json(1, '{"y":'),
        json(0, '{"x":1}'),
        { type: "content_block_stop", index: 0 },
        json(1, "2}"),
        ...(closeLast ? [{ type: "content_block_stop", index: 1 }] : []),
        { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: 9 } },
        { type: "message_stop" },
      ],
      { eventNames: true },
    );
  const parallel = serve("anthropic-parallel", body("tool_use", true));
  const truncated = serve("anthropic-truncated", body("max_tokens", false));

  it.each(SEEDS)("streams tool_use blocks by block index, interleaved ones too (seed %i)", async (seed) => {
    const r = await collect(anthropic({ apiKey: "k", maxRetries: 0, baseURL: parallel(seed) }));
    expect(steps(r)).toEqual([
      "start toolu_a f",
      "start toolu_b g",
      'delta toolu_b {"y":',
      'delta toolu_a {"x":1}',
      "call toolu_a",
      "delta toolu_b 2}",
      "call toolu_b",
    ]);
  });

  it("a block still open at max_tokens streamed but never completes", async () => {
    const r = await collect(anthropic({ apiKey: "k", maxRetries: 0, baseURL: truncated(1) }));
    expect(r.calls.map((c) => c.id)).toEqual(["toolu_a"]);
    expect(streamedText(r)).toEqual({ toolu_a: '{"x":1}', toolu_b: '{"y":2}' });
    expect(r.finishes).toEqual([{ type: "finish", reason: "length" }]);
  });
});

describe("the fake servers replay FakeTurn.streamToolArgs on the wire, names mapped back", () => {
  const tools: ModelRequest["tools"] = [
    { name: "tickets.get", description: "", inputSchema: { type: "object" } },
    { name: "notes", description: "", inputSchema: { type: "object" } },
  ];
  const turn: FakeTurn = {
    toolCalls: [
      { id: "c1", name: "tickets.get", args: { id: 42, note: "a longer argument, split in pieces" } },
      { id: "c2", name: "notes", args: { text: "ünïcödé ✓" } },
    ],
    streamToolArgs: { pieces: 4, interleaved: true },
  };
  const servers: [string, () => Promise<FakeServer>, (server: FakeServer) => Provider][] = [
    [
      "Chat Completions",
      () => createFakeOpenAIServer([turn], { tools }),
      (s) => openai({ apiKey: "k", maxRetries: 0, baseURL: s.baseURL }),
    ],
    [
      "Responses",
      () => createFakeResponsesServer([turn], { tools }),
      (s) => openai({ api: "responses", apiKey: "k", maxRetries: 0, baseURL: s.baseURL }),
    ],
    [
      "Anthropic",
      () => createFakeAnthropicServer([turn], { tools }),
      (s) => anthropic({ apiKey: "k", maxRetries: 0, baseURL: s.baseURL }),
    ],
  ];

  it.each(servers)(
    "%s: interleaved pieces, the defined names, the deltas joined are the arguments",
    async (_name, start, make) => {
      const server = await start();
      try {
        const r = await collect(make(server), { tools });
        expect(r.error).toBeUndefined();
        expect(r.orphanDeltas).toBe(0);
        expect(r.streamed.map(({ id, name }) => [id, name])).toEqual([
          ["c1", "tickets.get"],
          ["c2", "notes"],
        ]);
        for (const call of r.calls) expect(JSON.parse(streamedText(r)[call.id]!)).toEqual(call.args);
        expect(r.calls.map((c) => c.name)).toEqual(["tickets.get", "notes"]);
        // Interleaved: the second call's first piece comes before the first call's last one.
        const order = steps(r).filter((s) => s.startsWith("delta"));
        expect(order.findIndex((s) => s.startsWith("delta c2"))).toBeLessThan(
          order.findLastIndex((s) => s.startsWith("delta c1")),
        );
      } finally {
        await server.close();
      }
    },
  );
});

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  defineTool,
  ProviderError,
  runUnifiedAgentLoop,
  type ModelEvent,
  type ModelRequest,
  type Provider,
  type Message,
  type Tool,
} from "@agentry/core";
import { openai } from "@agentry/core/openai";
import {
  CassetteMismatchError,
  collectEvents,
  createFakeProvider,
  createFakeResponsesServer,
  eventsOfType,
  recordProvider,
  replayProvider,
  type FakeScript,
} from "@agentry/core/testing";

afterEach(() => {
  vi.unstubAllEnvs();
});

const cassettePath = () => join(mkdtempSync(join(tmpdir(), "agentry-cassette-")), "nested", "run.jsonl");

const lookup = defineTool({
  name: "orders.lookup",
  description: "Find an order",
  input: z.object({ id: z.string() }),
  execute: ({ id }) => ({ id, status: "shipped" }),
});

const script: FakeScript = (request) => {
  const last = request.messages.at(-1)!;
  if (last.role === "user")
    return {
      thinking: "Look it up.",
      toolCalls: [{ name: "orders.lookup", args: { id: "A-1" } }],
      usage: { inputTokens: 10, outputTokens: 3 },
    };
  const result = last.role === "tool" ? (last.content[0]!.result as { status: string }) : undefined;
  return { text: `Order A-1 is ${result?.status}.`, usage: { inputTokens: 20, outputTokens: 5 } };
};

async function run(provider: Provider, options: { system?: string; content?: string; tools?: Tool[] } = {}) {
  const { events, result } = await collectEvents(
    runUnifiedAgentLoop({
      provider,
      model: "m",
      systemPrompt: options.system ?? "You track orders.",
      history: [{ role: "user", content: options.content ?? "Where is order A-1?" }],
      tools: options.tools ?? [lookup],
    }),
  );
  return { events, result: result!, calls: eventsOfType(events, "tool_call_update").filter((e) => e.status === "end") };
}

/** A provider that fails the test if it is ever asked. */
const unreachable: Provider = {
  id: "unreachable",
  stream: () => {
    throw new Error("the real provider was called");
  },
};

describe("recordProvider / replayProvider", () => {
  it("records a run as JSON lines and replays it offline, the same events and result", async () => {
    const path = cassettePath();
    const real = createFakeProvider(script);
    const recorded = await run(recordProvider(real, { path }));
    expect(recorded.result.status).toBe("complete");
    expect(real.calls).toHaveLength(2);

    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[0]!)).toEqual({ format: "agentry-cassette", version: 1, provider: "fake" });
    expect(JSON.parse(lines[1]!)).toMatchObject({
      call: 0,
      request: { model: "m", system: "You track orders.", caller: { depth: 0, parentId: null } },
    });
    expect(JSON.parse(lines[2]!)).toMatchObject({
      call: 0,
      response: { end: "complete", events: expect.arrayContaining([{ type: "finish", reason: "tool_calls" }]) },
    });
    expect(lines[3]).toContain('"result":{"id":"A-1","status":"shipped"}');

    const replay = replayProvider({ path });
    const replayed = await run(replay);
    expect(replayed.result.text).toBe("Order A-1 is shipped.");
    expect(replayed.result.usage).toEqual(recorded.result.usage);
    expect(replayed.calls).toEqual(recorded.calls.map((e) => ({ ...e, durationMs: expect.any(Number) })));
    expect(replayed.events.map((e) => e.type)).toEqual(recorded.events.map((e) => e.type));
    expect(await replay.unused()).toBe(0);
  });

  it('records a run on openai({ api: "responses" }) and replays it offline, reasoning items included', async () => {
    const path = cassettePath();
    const server = await createFakeResponsesServer(script, { tools: [lookup] });
    let recorded: Awaited<ReturnType<typeof run>>;
    try {
      recorded = await run(
        recordProvider(openai({ api: "responses", baseURL: server.baseURL, apiKey: "test" }), { path }),
      );
    } finally {
      await server.close();
    }
    expect(recorded.result.text).toBe("Order A-1 is shipped.");
    // The second request carried the first response's reasoning item: the cassette holds it as sent.
    expect(readFileSync(path, "utf8")).toContain("fake-encrypted-0");
    const replay = replayProvider({ path });
    const replayed = await run(replay);
    expect(replayed.result.text).toBe(recorded.result.text);
    // The execution tree's durations are wall-clock times of this run: everything else replays exactly.
    expect(withoutDurations(replayed.result.messages)).toEqual(withoutDurations(recorded.result.messages));
    expect(replayed.calls).toEqual(recorded.calls.map((e) => ({ ...e, durationMs: expect.any(Number) })));
    expect(await replay.unused()).toBe(0);
  });

  it("writes the same bytes for the same run (no timestamps, no random ids, stable key order)", async () => {
    const [a, b] = [cassettePath(), cassettePath()];
    await run(recordProvider(createFakeProvider(script), { path: a }));
    await run(recordProvider(createFakeProvider(script), { path: b }));
    expect(readFileSync(b, "utf8")).toBe(readFileSync(a, "utf8"));
  });

  it("runs in replay mode without calling the provider, and AGENTRY_CASSETTE_MODE overrides the mode", async () => {
    const path = cassettePath();
    await run(recordProvider(createFakeProvider(script), { path }));
    expect((await run(recordProvider(unreachable, { path, mode: "replay" }))).result.text).toBe(
      "Order A-1 is shipped.",
    );
    vi.stubEnv("AGENTRY_CASSETTE_MODE", "replay");
    const provider = recordProvider(unreachable, { path, mode: "record" });
    expect(provider.mode).toBe("replay");
    expect((await run(provider)).result.text).toBe("Order A-1 is shipped.");
    vi.stubEnv("AGENTRY_CASSETTE_MODE", "sometimes");
    expect(() => recordProvider(unreachable, { path })).toThrow(
      /AGENTRY_CASSETTE_MODE must be one of replay, record, missing/,
    );
  });

  it("fails a changed request with a message naming what changed and how to record again", async () => {
    const path = cassettePath();
    await run(recordProvider(createFakeProvider(script), { path }));

    const system = await run(replayProvider({ path }), { system: "You track parcels." });
    expect(system.result.status).toBe("error");
    expect(system.result.error?.message).toContain(
      `Cassette "${path}": request 0 (depth 0) matches no recorded interaction`,
    );
    expect(system.result.error?.message).toMatch(
      /system prompt differs at character 10: "You track orders\." → "You track parcels\."/,
    );
    expect(system.result.error?.message).toMatch(/mode: "record"/);
    expect(system.result.error?.message).toMatch(/AGENTRY_CASSETTE_MODE=record/);

    const changed = defineTool({
      name: "orders.lookup",
      description: "Find an order",
      input: z.object({ id: z.string() }),
      execute: ({ id }) => ({ id, status: "lost" }),
    });
    const result = await run(replayProvider({ path }), { tools: [changed] });
    expect(result.result.error?.message).toMatch(/request 1 \(depth 0\) matches no recorded interaction/);
    expect(result.result.error?.message).toContain('message 2 (tool): content[0].result.status: "shipped" → "lost"');

    const tool = defineTool({
      name: "orders.lookup",
      description: "Find one order",
      input: z.object({ id: z.string(), full: z.boolean() }),
      execute: () => ({}),
    });
    const tools = await run(replayProvider({ path }), { tools: [tool] });
    expect(tools.result.error?.message).toContain('tool "orders.lookup": description differs at character 5');
    expect(tools.result.error?.message).toMatch(
      /tool "orders.lookup": input schema properties\.full: \(none\) → \{"type":"boolean"\}/,
    );

    const mismatch = await new Promise<unknown>((resolve) => {
      const stream = replayProvider({ path }).stream(
        { model: "other", system: "You track orders.", messages: [], tools: [] },
        { signal: new AbortController().signal },
      );
      stream[Symbol.asyncIterator]().next().then(resolve, resolve);
    });
    expect(CassetteMismatchError.isInstance(mismatch)).toBe(true);
    expect((mismatch as CassetteMismatchError).differences).toEqual(expect.arrayContaining(['model: "m" → "other"']));
  });

  it("says so when the file is missing or the recording ran out", async () => {
    const missing = await run(replayProvider({ path: cassettePath() }));
    expect(missing.result.error?.message).toMatch(/no such file \(request 0 \(depth 0\) has nothing to replay\)/);
    const path = await recordOne();
    writeFileSync(path, `${readFileSync(path, "utf8").trimEnd().split("\n").slice(0, 3).join("\n")}\n`);
    const short = await run(replayProvider({ path }));
    expect(short.result.error?.message).toMatch(
      /request 1 \(depth 0\) came after all 1 recorded interactions were served/,
    );
  });

  it('"missing" replays what matches and records only the rest', async () => {
    const path = cassettePath();
    await run(recordProvider(createFakeProvider(script), { path }));
    const first = readFileSync(path, "utf8");
    // Everything matches: the real provider is not asked and the file is left alone.
    await run(recordProvider(unreachable, { path, mode: "missing" }));
    expect(readFileSync(path, "utf8")).toBe(first);
    // The second answer changes: the first call is replayed, the second recorded again.
    const real = createFakeProvider(script);
    const changed = defineTool({
      name: "orders.lookup",
      description: "Find an order",
      input: z.object({ id: z.string() }),
      execute: ({ id }) => ({ id, status: "lost" }),
    });
    const result = await run(recordProvider(real, { path, mode: "missing" }), { tools: [changed] });
    expect(result.result.text).toBe("Order A-1 is lost.");
    expect(real.calls).toHaveLength(1);
    expect((await run(replayProvider({ path }), { tools: [changed] })).result.text).toBe("Order A-1 is lost.");
  });

  it("redacts secrets before writing and matches on the redacted form", async () => {
    const path = cassettePath();
    const redact = (value: ModelRequest | ModelEvent): ModelRequest | ModelEvent =>
      JSON.parse(JSON.stringify(value).replaceAll("sk-live-123", "[secret]"));
    const secretScript: FakeScript = (request) => ({ text: `Using ${firstText(request)}` });
    const recorded = await run(recordProvider(createFakeProvider(secretScript), { path, redact }), {
      content: "key sk-live-123",
    });
    expect(recorded.result.text).toBe("Using key sk-live-123");
    expect(readFileSync(path, "utf8")).not.toContain("sk-live-123");
    expect(readFileSync(path, "utf8")).toContain("[secret]");
    // Replayed with the same redact, a request with another secret still matches.
    const replayed = await run(replayProvider({ path, redact }), { content: "key sk-live-123" });
    expect(replayed.result.text).toBe("Using key [secret]");
    expect(() => recordProvider(unreachable, { path, redact: "no" as never })).toThrow(/redact must be a function/);
  });

  it("replays a provider error as the same ProviderError", async () => {
    const path = cassettePath();
    const failing = createFakeProvider([
      {
        text: "partial",
        error: new ProviderError("overloaded", {
          provider: "fake",
          status: 529,
          retryable: true,
          errorType: "overloaded_error",
        }),
      },
    ]);
    const recorded = await run(recordProvider(failing, { path }));
    const replayed = await run(replayProvider({ path }));
    expect(replayed.result.status).toBe("error");
    expect(replayed.result.error).toEqual(recorded.result.error);
    expect(replayed.result.error).toMatchObject({
      status: 529,
      retryable: true,
      code: "overloaded_error",
      provider: "fake",
    });
  });

  it("writes run-specific ids as placeholders and gives a replayed event the live id back", async () => {
    const path = cassettePath();
    const echoId: FakeScript = (request) => ({ text: `ticket ${/[0-9a-f-]{36}/.exec(firstText(request))![0]}` });
    const first = crypto.randomUUID();
    await run(recordProvider(createFakeProvider(echoId), { path }), { content: `open ${first}` });
    expect(readFileSync(path, "utf8")).not.toContain(first);
    expect(readFileSync(path, "utf8")).toContain("open <id:1>");
    const second = crypto.randomUUID();
    expect((await run(replayProvider({ path }), { content: `open ${second}` })).result.text).toBe(`ticket ${second}`);
    // With normalisation off, the id is part of the request.
    const strict = cassettePath();
    await run(recordProvider(createFakeProvider(echoId), { path: strict, volatile: false }), {
      content: `open ${first}`,
    });
    expect(
      (await run(replayProvider({ path: strict, volatile: false }), { content: `open ${second}` })).result.status,
    ).toBe("error");
  });

  it("keeps a request's tool choice and matches on it", async () => {
    const path = cassettePath();
    const request: ModelRequest = {
      model: "m",
      system: "You track orders.",
      messages: [{ role: "user", content: "Where is order A-1?" }],
      tools: [{ name: "orders.lookup", description: "Find an order", inputSchema: { type: "object" } }],
      toolChoice: { name: "orders.lookup" },
    };
    const first = async (provider: Provider, toolChoice: ModelRequest["toolChoice"]) => {
      const stream = provider.stream({ ...request, toolChoice }, { signal: new AbortController().signal });
      try {
        const events: ModelEvent[] = [];
        for await (const event of stream) events.push(event);
        return events;
      } catch (error) {
        return error;
      }
    };
    await first(recordProvider(createFakeProvider([{ text: "Looking." }]), { path }), { name: "orders.lookup" });
    expect(readFileSync(path, "utf8")).toContain('"toolChoice":{"name":"orders.lookup"}');
    expect(await first(replayProvider({ path }), { name: "orders.lookup" })).toContainEqual({
      type: "text_delta",
      text: "Looking.",
    });
    const mismatch = await first(replayProvider({ path }), "none");
    expect(CassetteMismatchError.isInstance(mismatch)).toBe(true);
    expect((mismatch as CassetteMismatchError).differences).toContain('toolChoice: {"name":"orders.lookup"} → "none"');
  });

  it("matches a request line edited by hand whatever its key order", async () => {
    const path = await recordOne();
    writeFileSync(
      path,
      readFileSync(path, "utf8").replaceAll(
        '"model":"m","system":"You track orders."',
        '"system":"You track orders.","model":"m"',
      ),
    );
    expect(readFileSync(path, "utf8")).toContain('"system":"You track orders.","model":"m"');
    expect((await run(replayProvider({ path }))).result.text).toBe("Order A-1 is shipped.");
  });

  it("rejects a cassette it did not write, naming the line", async () => {
    const path = cassettePath();
    await recordOne(path);
    writeFileSync(path, readFileSync(path, "utf8").replace(/\n.*\n/, "\nnot json\n"));
    const result = await run(replayProvider({ path }));
    expect(result.result.error?.message).toMatch(/line 2: expected a request line/);
    writeFileSync(
      path,
      readFileSync(await recordOne(), "utf8").replace(/"response":\{"end":"complete"/, '"response":{"end":"later"'),
    );
    expect((await run(replayProvider({ path }))).result.error?.message).toMatch(/line 3: unknown end "later"/);
  });
});

function firstText(request: ModelRequest): string {
  const first = request.messages[0]!;
  return first.role === "user" && typeof first.content === "string" ? first.content : "";
}

async function recordOne(path = cassettePath()): Promise<string> {
  await run(recordProvider(createFakeProvider(script), { path }));
  return path;
}

/** The messages with every execution-tree node's `duration_ms` removed (a measured time, not replayed). */
function withoutDurations(messages: readonly Message[]): unknown {
  return JSON.parse(JSON.stringify(messages, (key, value: unknown) => (key === "duration_ms" ? undefined : value)));
}

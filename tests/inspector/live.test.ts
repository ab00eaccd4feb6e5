import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime, MemorySessionStore } from "@agentry/core";
import { createInspector } from "@agentry/core/inspector";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";

const registry = createAgentRegistry([{ agentId: "general", displayName: "General" }]);
const authorize = () => ({ scopePrefix: "", canAct: false });

function runtimeOn(store: SqliteSessionStore | MemorySessionStore, text: string) {
  return createAgentRuntime({
    registry,
    store,
    providers: { fake: createFakeProvider(() => ({ text })) },
    defaultModel: "m",
  });
}

/** Reads SSE text until `pattern` matches. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (!pattern.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe("inspector: live", () => {
  it("streams records another runtime appends to the same SQLite file, with the refreshed turn", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-live-")), "agents.db");
    const mine = new SqliteSessionStore({ path });
    const theirs = new SqliteSessionStore({ path });
    const here = runtimeOn(mine, "first answer");
    const there = runtimeOn(theirs, "answer from the other process");
    const first = await here.send({ agentId: "general", content: "one" });
    // A fallback read once a minute: within the test, only the other runtime's signals can bring its records.
    const inspector = createInspector({ runtime: here, authorize, livePollMs: 60_000 });
    // The session's detail says how far it read: the live stream opens after it, with no replay.
    const detail = (await (await inspector(new Request(`http://x/api/sessions/${first.sessionId}`))).json()) as {
      lastSeq: number;
    };
    const lastSeq = (await mine.load(first.sessionId)).at(-1)!.seq;
    expect(detail.lastSeq).toBe(lastSeq);
    const controller = new AbortController();
    const response = await inspector(
      new Request(`http://x/api/sessions/${first.sessionId}/live?afterSeq=${lastSeq}`, { signal: controller.signal }),
    );
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    // The stream's first read of the store finds nothing new; the other runtime writes after it.
    await readUntil(reader, /: live\n\n/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await there.send({ agentId: "general", content: "two", session: first.sessionId });
    const text = await readUntil(reader, /event: turn\ndata: .*"status":"complete"/);
    expect(text).toContain("answer from the other process");
    expect(text).not.toContain("first answer");
    const turn = JSON.parse(/event: turn\ndata: (.*)\n/.exec(text)![1]!) as {
      turn: { runId: string; turnNumber: number };
    };
    expect(turn.turn).toMatchObject({ runId: second.runId, turnNumber: 2 });
    controller.abort();
    await reader.cancel();
    await here.close();
    await there.close();
    mine.close();
    theirs.close();
  });

  it("caps open streams (503 beyond), and a stream closed by its client frees its place", async () => {
    const runtime = runtimeOn(new MemorySessionStore(), "hi");
    const turn = await runtime.send({ agentId: "general", content: "one" });
    const inspector = createInspector({ runtime, authorize, maxLiveConnections: 1 });
    const url = `http://x/api/sessions/${turn.sessionId}/live`;
    const controller = new AbortController();
    const open = await inspector(new Request(url, { signal: controller.signal }));
    expect(open.status).toBe(200);
    const refused = await inspector(new Request(url));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: "too many live connections" });
    controller.abort();
    const again = await inspector(new Request(url));
    expect(again.status).toBe(200);
    await again.body!.cancel();
    await runtime.close();
  });
  it("caps each tenant's streams below the global cap: tenant A at its maximum, tenant B still connects", async () => {
    const runtime = runtimeOn(new MemorySessionStore(), "hi");
    const a = await runtime.send({ agentId: "general", content: "one", scope: "tenant-a/1" });
    const b = await runtime.send({ agentId: "general", content: "two", scope: "tenant-b/1" });
    const inspector = createInspector({
      runtime,
      authorize: (request) => ({ scopePrefix: request.headers.get("x-tenant") ?? "none", canAct: false }),
      maxLiveConnections: 5,
      maxLiveConnectionsPerScope: 2,
    });
    const open = (sessionId: string, tenant: string, signal?: AbortSignal) =>
      inspector(new Request(`http://x/api/sessions/${sessionId}/live`, { headers: { "x-tenant": tenant }, signal }));
    const controllers = [new AbortController(), new AbortController()];
    for (const controller of controllers)
      expect((await open(a.sessionId, "tenant-a/", controller.signal)).status).toBe(200);
    expect((await open(a.sessionId, "tenant-a/")).status).toBe(503);
    const other = await open(b.sessionId, "tenant-b/");
    expect(other.status).toBe(200);
    await other.body!.cancel();
    // A stream tenant A closes frees a place of its own.
    controllers[0]!.abort();
    const again = await open(a.sessionId, "tenant-a/");
    expect(again.status).toBe(200);
    await again.body!.cancel();
    controllers[1]!.abort();
    await runtime.close();
  });
});

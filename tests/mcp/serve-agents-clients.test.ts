import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  createAgentRegistry,
  createAgentRuntime,
  MemorySessionStore,
  type AgentRuntime,
  type SendInput,
} from "@agentry/core";
import { serveAgentsOverMcp, type ServeAgentsOverMcpOptions } from "@agentry/core/mcp";
import { createFakeProvider, type FakeScript } from "@agentry/core/testing";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function makeRuntime(script: FakeScript) {
  const provider = createFakeProvider(script);
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([
      { agentId: "support", displayName: "Support" },
      { agentId: "secret", displayName: "Secret", apiExposed: false },
    ]),
    store: new MemorySessionStore(),
    providers: { fake: provider },
    defaultModel: "fake",
  });
  cleanup.push(() => runtime.close());
  const sent: SendInput[] = [];
  const observed: AgentRuntime = { ...runtime, send: (input) => (sent.push(input), runtime.send(input)) };
  return { runtime, observed, provider, sent };
}

async function listening(options: ServeAgentsOverMcpOptions) {
  const handle = serveAgentsOverMcp(options);
  const { url } = await handle.listen();
  cleanup.push(() => handle.close());
  return url;
}

async function httpClient(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "c", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  cleanup.push(() => client.close());
  return client;
}

const say = async (client: Client, message: string, session?: string) => {
  const result = await client.callTool({
    name: "support",
    arguments: { message, ...(session !== undefined && { session }) },
  });
  const text = (result.content as { text: string }[])[0]!.text;
  return {
    text,
    isError: result.isError === true,
    sessionId: (result.structuredContent as { sessionId?: string } | undefined)?.sessionId,
  };
};

describe("serveAgentsOverMcp: each MCP client has its own conversations", { timeout: 60_000 }, () => {
  it("a second HTTP client's first call starts its own session; each client continues its own", async () => {
    const { observed, provider } = makeRuntime([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const url = await listening({ runtime: observed });
    const alice = await httpClient(url);
    const bob = await httpClient(url);
    const first = await say(alice, "I am Alice");
    const second = await say(bob, "I am Bob");
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(provider.calls[1]!.messages.map((m) => m.role)).toEqual(["user"]);
    const third = await say(alice, "Still Alice");
    expect(third.sessionId).toBe(first.sessionId);
  });

  it("another client's session id, a hidden agent's and one that does not exist get the same answer", async () => {
    const { runtime, observed } = makeRuntime([{ text: "one" }, { text: "hidden" }]);
    const url = await listening({ runtime: observed });
    const alice = await httpClient(url);
    const bob = await httpClient(url);
    const { sessionId: alices } = await say(alice, "hi");
    const { sessionId: hidden } = await runtime.send({ agentId: "secret", content: "classified" });
    const answers = await Promise.all([
      say(bob, "x", alices),
      say(alice, "x", hidden),
      say(bob, "x", "no-such-session"),
    ]);
    expect(answers.map((a) => a.isError)).toEqual([true, true, true]);
    expect(answers.map((a) => a.text)).toEqual([
      `Unknown session "${alices}".`,
      `Unknown session "${hidden}".`,
      'Unknown session "no-such-session".',
    ]);
    expect(JSON.stringify(answers)).not.toMatch(/secret/i);
  });

  it("authorize(request) gives each request its scope; null answers 401", async () => {
    const { observed, sent } = makeRuntime([{ text: "a" }, { text: "b" }]);
    const url = await listening({
      runtime: observed,
      authorize: (request) => {
        const user = request.headers["x-user"];
        return typeof user === "string" ? { scope: `user:${user}` } : null;
      },
    });
    await expect(httpClient(url)).rejects.toThrow(/401|Unauthorized/);
    await say(await httpClient(url, { "x-user": "alice" }), "hi");
    await say(await httpClient(url, { "x-user": "bob" }), "hi");
    expect(sent.map((input) => input.scope)).toEqual(["user:alice", "user:bob"]);
  });

  it("caps the sessions one client starts and the turns it runs at once", async () => {
    const { observed, provider } = makeRuntime([{ text: "slow", delayMs: 60_000 }, { text: "one" }, { text: "two" }]);
    const handle = serveAgentsOverMcp({ runtime: observed, maxSessionsPerClient: 2, maxTurnsPerClient: 1 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await handle.connect(serverSide);
    const client = new Client({ name: "c", version: "1.0.0" });
    await client.connect(clientSide);
    cleanup.push(
      () => client.close(),
      () => handle.close(),
    );
    const controller = new AbortController();
    const slow = client
      .callTool({ name: "support", arguments: { message: "slow" } }, undefined, { signal: controller.signal })
      .catch(() => undefined);
    // The slow turn has its model call (the scripted 60-second answer) before it is cancelled.
    await expect.poll(() => provider.calls.length).toBe(1);
    await expect
      .poll(async () => (await say(client, "meanwhile")).text)
      .toMatch(/already has 1 turns running \(at most 1\)/);
    controller.abort();
    await slow;
    await expect.poll(async () => (await say(client, "again", "create")).isError).toBe(false);
    expect((await say(client, "and again", "create")).text).toMatch(/already started 2 sessions \(at most 2\)/);
  });

  it("caps the MCP sessions served at once", async () => {
    const { observed } = makeRuntime([]);
    const url = await listening({ runtime: observed, maxClients: 1 });
    await httpClient(url);
    await expect(httpClient(url)).rejects.toThrow(/503|Too many MCP sessions/);
  });

  it("keeps DNS rebinding protection on all interfaces: allowedHosts is required there, and other Host headers get 403", async () => {
    const { observed } = makeRuntime([]);
    const bare = serveAgentsOverMcp({ runtime: observed });
    await expect(bare.listen({ host: "0.0.0.0" })).rejects.toThrow(/needs allowedHosts/);
    const handle = serveAgentsOverMcp({ runtime: observed });
    const { url } = await handle.listen({ host: "0.0.0.0", allowedHosts: ["agents.example"] });
    cleanup.push(() => handle.close());
    const port = new URL(url).port;
    const post = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        });
        const request = httpRequest(
          `http://127.0.0.1:${port}/mcp`,
          {
            method: "POST",
            headers: { host, "content-type": "application/json", accept: "application/json, text/event-stream" },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.once("error", reject);
        request.end(body);
      });
    expect(await post(`127.0.0.1:${port}`)).toBe(403);
    expect(await post("agents.example")).toBe(200);
  });
});

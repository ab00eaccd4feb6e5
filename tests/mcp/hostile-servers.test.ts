import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime, defaultPolicy, MemorySessionStore } from "@agentry/core";
import {
  connectMcpServer,
  toolsWithMcp,
  type ConnectMcpServerOptions,
  type McpConnection,
  type McpWarningCode,
} from "@agentry/core/mcp";
import { createFakeProvider } from "@agentry/core/testing";
import { hostileServer, runMcpTool, SERVER_START_MS, startHostileHttpServer, type HostileStats } from "./servers.js";

const toolResults = (messages: { role: string; content: unknown }[]) =>
  messages
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content as { name: string; result: unknown; isError?: boolean }[]);

/** One turn in which the model makes `calls` on the connection's tools; returns the results the model saw. */
async function turn(connection: McpConnection, calls: { name: string; args: unknown }[]) {
  const provider = createFakeProvider([{ toolCalls: calls }, { text: "Done." }]);
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "a", displayName: "A" }]),
    store: new MemorySessionStore(),
    providers: { fake: provider },
    defaultModel: "fake",
    tools: toolsWithMcp({ connections: [connection] }),
    policy: {
      ...defaultPolicy(),
      classes: [...defaultPolicy().classes, "network"],
      allowedMcpServers: [connection.name],
    },
    approve: () => Promise.resolve({ approved: true as const }),
  });
  try {
    const result = await runtime.send({ agentId: "a", content: "go" });
    return { status: result.status, results: toolResults(result.messages), offered: provider.calls[0]!.tools };
  } finally {
    await runtime.close();
  }
}

type Start = (
  options: Partial<ConnectMcpServerOptions>,
) => Promise<{ connection: McpConnection; warnings: [string, McpWarningCode][]; stop?: () => void }>;

const stdio: Start = async (options) => {
  const warnings: [string, McpWarningCode][] = [];
  const connection = await connectMcpServer({
    name: "hostile",
    ...hostileServer(),
    onWarning: (m, c) => warnings.push([m, c]),
    ...options,
  });
  return { connection, warnings };
};

describe.each([
  ["stdio", (): Start => stdio],
  [
    "streamable HTTP",
    (): Start => async (options) => {
      const server = await startHostileHttpServer();
      const warnings: [string, McpWarningCode][] = [];
      const connection = await connectMcpServer({
        name: "hostile",
        url: server.url,
        onWarning: (m, c) => warnings.push([m, c]),
        ...options,
      });
      return { connection, warnings, stop: () => server.stop() };
    },
  ],
] as const)("a hostile MCP server's schemas and results (%s)", { timeout: 60_000 }, (_transport, starter) => {
  let connection: McpConnection;
  let warnings: [string, McpWarningCode][];
  let stop: (() => void) | undefined;
  beforeAll(async () => {
    ({ connection, warnings, stop } = await starter()({ timeoutMs: 10_000 }));
  }, SERVER_START_MS);
  afterAll(async () => {
    await connection?.close();
    stop?.();
  });

  it("leaves out, with a warning, a tool whose $defs double at each level and one whose input schema is over 16 KB; the rest work", async () => {
    const names = connection.tools().map((t) => t.name);
    expect(names).not.toContain("hostile.bomb");
    expect(names).not.toContain("hostile.big_schema");
    expect(warnings).toEqual(
      expect.arrayContaining([
        [
          expect.stringMatching(
            /"hostile\.bomb" is left out: its input schema cannot be used .*more than 5000 subschemas once its \$refs are inlined/,
          ),
          "mcp_tool_skipped",
        ],
        [
          expect.stringMatching(/"hostile\.big_schema" is left out: .*the schema is \d+ bytes; at most 16384/),
          "mcp_tool_skipped",
        ],
      ]),
    );
    const { results } = await turn(connection, [{ name: "hostile.fine", args: { s: "hi" } }]);
    expect(results).toEqual([expect.objectContaining({ result: "got hi" })]);
  });

  it("checks the server's input pattern ^(a+)+$ on a linear-time engine: a 40-character argument is an error result, not a frozen process", async () => {
    const { status, results } = await turn(connection, [
      { name: "hostile.match", args: { s: "b" } },
      { name: "hostile.match", args: { s: `${"a".repeat(40)}!` } },
      { name: "hostile.match", args: { s: "aaa" } },
    ]);
    expect(status).toBe("complete");
    expect(results[0]).toMatchObject({
      isError: true,
      result: expect.stringMatching(/\/s: does not match the pattern required here/),
    });
    expect(results[1]).toMatchObject({
      isError: true,
      result: expect.stringMatching(/does not match the pattern required here/),
    });
    expect(results[2]).toMatchObject({ result: "got aaa" });
  });

  it("checks structuredContent against the output schema ^(a+)+$ itself, with bounds: an error result", async () => {
    const { status, results } = await turn(connection, [{ name: "hostile.redos_output", args: {} }]);
    expect(status).toBe("complete");
    expect(results[0]).toMatchObject({
      isError: true,
      result: expect.stringMatching(
        /structured result that does not match its output schema: .*\/s: does not match the pattern required here/,
      ),
    });
  });

  it("answers structuredContent nested 3,000 deep with an error result; the turn goes on", async () => {
    const { status, results } = await turn(connection, [{ name: "hostile.deep", args: {} }]);
    expect(status).toBe("complete");
    expect(results[0]).toMatchObject({ isError: true, result: expect.stringMatching(/nests deeper than 64 levels/) });
  });

  it("keeps at most 4,000 characters of a 10 MB description", () => {
    const tool = connection.tools().find((t) => t.name === "hostile.big_description")!;
    expect(tool.description).toHaveLength(4_001);
  });
});

describe("a hostile MCP server over stdio", { timeout: 60_000 }, () => {
  it("keeps the first maxTools of a 200,000-tool page, with a warning", async () => {
    const { connection, warnings } = await stdio({ ...hostileServer("--tools=many"), connectTimeoutMs: 50_000 });
    try {
      expect(connection.tools()).toHaveLength(500);
      expect(warnings).toContainEqual([
        expect.stringMatching(/offers more than 500 tools \(maxTools\)/),
        "mcp_tool_skipped",
      ]);
    } finally {
      await connection.close();
    }
  });

  it("re-reads a flooding server's tool list one read at a time, at least refreshIntervalMs apart", async () => {
    const { connection } = await stdio({ ...hostileServer("--tools=flood"), refreshIntervalMs: 300 });
    try {
      const stats = async () =>
        (await runMcpTool(
          connection.tools().find((t) => t.name === "hostile.stats")!,
          {},
          ctx(),
        )) as HostileStats;
      await expect
        .poll(async () => (await stats()).lists.length, { timeout: 20_000, interval: 100 })
        .toBeGreaterThanOrEqual(4);
      const { lists, maxListsInFlight } = await stats();
      expect(maxListsInFlight).toBe(1);
      // The first re-read follows the connect's read at once (the list changed while it was read); later ones wait.
      const gaps = lists.slice(2).map((at, i) => at - lists[i + 1]!);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(250);
    } finally {
      await connection.close();
    }
  });

  it("never shows the model the server's command line or stderr; the host gets both from onClose", async () => {
    const { connection } = await stdio({ ...hostileServer("--password=hunter2") });
    const closed: Error[] = [];
    connection.onClose((error) => closed.push(error));
    try {
      const { status, results } = await turn(connection, [{ name: "hostile.die", args: {} }]);
      expect(status).toBe("complete");
      expect(results[0]).toMatchObject({ isError: true, result: expect.stringMatching(/went away during "die"/) });
      const again = await turn(connection, [{ name: "hostile.fine", args: {} }]);
      expect(again.results[0]).toMatchObject({ isError: true, result: expect.stringMatching(/not connected/) });
      const seen = JSON.stringify([results, again.results]);
      expect(seen).not.toContain("hunter2");
      expect(seen).not.toContain("s3cr3t");
      await expect.poll(() => closed.length).toBe(1);
      expect(closed[0]!.message).toMatch(/--password=hunter2.*token=s3cr3t-token/);
    } finally {
      await connection.close();
    }
  });

  it("concurrent reconnect() calls start one server process; close() stops every one started", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentry-hostile-"));
    const pidFile = join(dir, "pids");
    const options = hostileServer();
    const { connection } = await stdio({ ...options, env: { ...options.env, HOSTILE_PID_FILE: pidFile } });
    try {
      await Promise.all([connection.reconnect(), connection.reconnect(), connection.reconnect()]);
      expect(connection.status).toBe("connected");
      const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
      expect(pids).toHaveLength(2);
      await connection.close();
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      await expect.poll(() => pids.filter(alive), { timeout: 10_000 }).toEqual([]);
    } finally {
      await connection.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a hostile MCP server over streamable HTTP", { timeout: 60_000 }, () => {
  let server: Awaited<ReturnType<typeof startHostileHttpServer>>;
  let connection: McpConnection;
  beforeAll(async () => {
    server = await startHostileHttpServer();
    // Above the 10 MB description in its tool list.
    connection = await connectMcpServer({
      name: "hostile",
      url: server.url,
      maxMessageBytes: 12_582_912,
      timeoutMs: 1_500,
    });
  }, SERVER_START_MS);
  afterAll(async () => {
    await connection?.close();
    server?.stop();
  });
  const call = (name: string) =>
    runMcpTool(
      connection.tools().find((t) => t.name === `hostile.${name}`)!,
      {},
      ctx(),
    );

  it("cuts off an SSE line that never ends at maxMessageBytes: the call fails at once and the stream is closed", async () => {
    await expect(call("endless_line")).rejects.toThrow(/over 12582912 bytes \(maxMessageBytes\)/);
    await expect.poll(async () => (await server.stats()).endlessOpen, { timeout: 10_000 }).toBe(0);
    await expect(call("fine")).resolves.toBe("got undefined");
  });

  it("stops reading a call's response stream when the call times out", async () => {
    await expect(call("endless_events")).rejects.toThrow(/did not answer "endless_events" within 1500 ms/);
    await expect.poll(async () => (await server.stats()).endlessOpen, { timeout: 10_000 }).toBe(0);
    expect((await server.stats()).endlessClosed).toBeGreaterThanOrEqual(2);
  });

  it("close() does not wait forever for a server that never answers the session DELETE", async () => {
    const hanging = await startHostileHttpServer("--hang-delete");
    try {
      const closing = await connectMcpServer({ name: "hangs", url: hanging.url, connectTimeoutMs: 1_000 });
      await closing.close();
      expect(closing.status).toBe("closed");
      expect((await hanging.stats()).deletes).toBe(1);
    } finally {
      hanging.stop();
    }
  });
});

function ctx() {
  return {
    toolCallId: "c1",
    depth: 0,
    parentId: null,
    callKey: "test",
    signal: new AbortController().signal,
    policy: defaultPolicy(),
  };
}

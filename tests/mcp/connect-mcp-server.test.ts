import { getEventListeners } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServer, McpConnectionError, type McpConnection, type McpWarningCode } from "@agentry/core/mcp";
import type { Tool } from "@agentry/core";
import { misbehavingServer, runMcpTool, toolContext } from "./servers.js";

/** Starting a server process takes seconds on a busy machine (the default hook limit is 10 s). */
const SERVER_START_MS = 60_000;

const open: McpConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(extra: Partial<Parameters<typeof connectMcpServer>[0]> = {}) {
  const warnings: [string, McpWarningCode][] = [];
  const connection = await connectMcpServer({
    name: "bad",
    ...misbehavingServer(),
    onWarning: (m, c) => warnings.push([m, c]),
    ...extra,
  });
  open.push(connection);
  return { connection, warnings };
}

const ctx = toolContext;
const tool = (connection: McpConnection, name: string): Tool => {
  const found = connection.tools().find((t) => t.name === `${connection.name}.${name}`);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe("connectMcpServer (stdio)", { timeout: 60_000 }, () => {
  // One server for the tests that leave it as they found it (servers take seconds to start on a busy machine).
  let shared: { connection: McpConnection; warnings: [string, McpWarningCode][] };
  beforeAll(async () => {
    shared = await connect({ timeoutMs: 300 });
    open.splice(open.indexOf(shared.connection), 1);
  }, SERVER_START_MS);
  afterAll(() => shared.connection.close());

  it("maps the server's tools: prefixed names, mcpServer, the server's schema, class and approval from the annotations", async () => {
    const { connection, warnings } = shared;
    expect(connection.status).toBe("connected");
    const plain = tool(connection, "plain");
    expect(plain).toMatchObject({
      mcpServer: "bad",
      permissionClass: "network",
      requiresApproval: true,
      parallelSafe: false,
    });
    expect(plain.readOnly).toBeUndefined();
    expect(plain.inputSchema).toMatchObject({
      type: "object",
      properties: { value: { type: "string" } },
      required: ["value"],
    });
    expect(tool(connection, "lookup")).toMatchObject({ readOnly: true, requiresApproval: false, parallelSafe: true });
    expect(warnings).toEqual([[expect.stringMatching(/a_y+" of server "bad" is left out/), "mcp_tool_skipped"]]);
    await expect(runMcpTool(plain, { value: "v" }, ctx())).resolves.toBe("plain v");
  });

  it("turns an isError result into a thrown error with the server's text, and describes images in the text", async () => {
    const { connection } = shared;
    await expect(runMcpTool(tool(connection, "fail"), {}, ctx())).rejects.toThrow("the widget is broken");
    await expect(runMcpTool(tool(connection, "picture"), {}, ctx())).resolves.toEqual({
      type: "content",
      parts: [
        { type: "text", text: "here it is" },
        { type: "image", mediaType: "image/png", data: Buffer.from("not really a png").toString("base64") },
      ],
    });
  });

  it("leaves no listener on the turn's signal after its calls (the SDK would add one per call)", async () => {
    const { connection } = shared;
    const signal = new AbortController().signal;
    for (let i = 0; i < 3; i++) await runMcpTool(tool(connection, "lookup"), {}, ctx(signal));
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("rejects with a typed error naming the command when it is not installed", async () => {
    const error = await connectMcpServer({ name: "nope", command: "agentry-no-such-mcp-server" }).catch(
      (e: unknown) => e,
    );
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/command "agentry-no-such-mcp-server" was not found \(ENOENT\)/);
    expect(error).toMatchObject({ server: "nope" });
  });

  it("rejects with the server's stderr when it exits at start", async () => {
    const error = await connectMcpServer({ name: "early", ...misbehavingServer("--exit-at-start") }).catch(
      (e: unknown) => e,
    );
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /MCP server "early" .* exited during start\. Its stderr ended with: fatal: the config file is missing/,
    );
  });

  it("refuses bad options before starting anything, naming every problem", async () => {
    await expect(
      connectMcpServer({ name: "no.dots", command: "x", url: "http://127.0.0.1/mcp", timeoutMs: 0 }),
    ).rejects.toThrow(/name must match.*exactly one of command.*timeoutMs must be/);
  });

  it("times out a call that hangs, cancels it, and the connection stays usable", async () => {
    const { connection } = shared;
    await expect(runMcpTool(tool(connection, "hang"), {}, ctx())).rejects.toThrow(
      /did not answer "hang" within 300 ms/,
    );
    await expect(runMcpTool(tool(connection, "lookup"), {}, ctx())).resolves.toBe("looked up");
  });

  it("reports invalid JSON-RPC from the server in the error the call ends with", async () => {
    const { connection, warnings } = await connect({ timeoutMs: 300 });
    await expect(runMcpTool(tool(connection, "garbage"), {}, ctx())).rejects.toThrow(
      /within 300 ms.*sent invalid data/,
    );
    expect(warnings.some(([, code]) => code === "mcp_protocol_error")).toBe(true);
    await expect(runMcpTool(tool(connection, "lookup"), {}, ctx())).resolves.toBe("looked up");
  });

  it("aborts a call when the turn's signal aborts", async () => {
    const { connection } = shared;
    const controller = new AbortController();
    const call = runMcpTool(tool(connection, "hang"), {}, ctx(controller.signal));
    controller.abort(new Error("stop"));
    await expect(call).rejects.toThrow("stop");
    await expect(runMcpTool(tool(connection, "lookup"), {}, ctx())).resolves.toBe("looked up");
  });

  it("a server that dies mid-call gives an error, reports the failure, refuses calls until reconnect()", async () => {
    const { connection } = await connect();
    const closes: Error[] = [];
    connection.onClose((error) => closes.push(error));
    await expect(runMcpTool(tool(connection, "die"), {}, ctx())).rejects.toThrow(/went away during "die"/);
    await expect.poll(() => connection.status).toBe("failed");
    expect(closes).toHaveLength(1);
    expect(closes[0]!.message).toMatch(/closed the connection.*crashing on purpose/);
    await expect(runMcpTool(tool(connection, "lookup"), {}, ctx())).rejects.toThrow(/not connected.*reconnect/);
    await connection.reconnect();
    expect(connection.status).toBe("connected");
    await expect(runMcpTool(tool(connection, "lookup"), {}, ctx())).resolves.toBe("looked up");
  });

  it("follows tools/list_changed: the list is re-read and listeners are told", async () => {
    const { connection } = await connect();
    const before = connection.tools();
    let changes = 0;
    const unsubscribe = connection.onToolsChanged(() => changes++);
    expect(before.map((t) => t.name)).not.toContain("bad.late");
    await runMcpTool(tool(connection, "add_tool"), {}, ctx());
    await expect.poll(() => connection.tools().map((t) => t.name)).toContain("bad.late");
    expect(changes).toBeGreaterThanOrEqual(1);
    expect(connection.tools()).not.toBe(before);
    unsubscribe();
  });

  it("close() ends the connection and stops the server; calls then fail", async () => {
    const { connection } = await connect();
    await connection.close();
    expect(connection.status).toBe("closed");
    await expect(runMcpTool(tool(connection, "lookup"), {}, ctx())).rejects.toThrow(/not connected/);
  });
});

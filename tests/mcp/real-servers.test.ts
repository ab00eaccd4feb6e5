import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  createAgentRuntime,
  defaultPolicy,
  MemorySessionStore,
  type ToolPolicy,
} from "@agentry/core";
import { connectMcpServer, toolsWithMcp, type McpConnection } from "@agentry/core/mcp";
import { createFakeProvider, type FakeScript } from "@agentry/core/testing";
import { misbehavingServer, SERVER_START_MS, useFilesystemServer } from "./servers.js";

const policyFor = (...servers: string[]): ToolPolicy => ({
  ...defaultPolicy(),
  classes: [...defaultPolicy().classes, "network"],
  allowedMcpServers: servers,
});
const toolResults = (messages: { role: string; content: unknown }[]) =>
  messages
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content as { name: string; result: unknown; isError?: boolean }[]);

describe("the official filesystem server (stdio) through the runtime", { timeout: 60_000 }, () => {
  const server = useFilesystemServer("agentry-mcp-fs-");

  const runtimeWith = (script: FakeScript, policy: ToolPolicy, extra: { approve?: boolean; role?: string } = {}) => {
    const provider = createFakeProvider(script);
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([
        { agentId: "files", displayName: "Files", ...(extra.role && { role: extra.role }) },
      ]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "fake",
      tools: toolsWithMcp({ connections: [server.fs] }),
      policy,
      ...(extra.approve && { approve: () => Promise.resolve({ approved: true as const }) }),
    });
    return { runtime, provider };
  };

  it("lists, reads and writes files through the real server (the write approved)", async () => {
    const { runtime, provider } = runtimeWith(
      [
        {
          toolCalls: [
            { name: "fs.list_directory", args: { path: server.dir } },
            { name: "fs.read_text_file", args: { path: join(server.dir, "notes.txt") } },
          ],
        },
        {
          toolCalls: [
            { name: "fs.write_file", args: { path: join(server.dir, "todo.txt"), content: "1. buy milk\n" } },
          ],
        },
        { text: "Done." },
      ],
      policyFor("fs"),
      { approve: true },
    );
    const result = await runtime.send({ agentId: "files", content: "Make a todo list from my notes" });
    expect(result.status).toBe("complete");
    const [list, read, write] = toolResults(result.messages);
    // The server sends structuredContent ({ content }); it is the value the model gets.
    expect(list).toMatchObject({
      name: "fs.list_directory",
      result: { content: expect.stringContaining("[FILE] notes.txt") },
    });
    expect(read).toMatchObject({ name: "fs.read_text_file", result: { content: "buy milk\n" } });
    expect(write!.isError).toBeUndefined();
    expect(readFileSync(join(server.dir, "todo.txt"), "utf8")).toBe("1. buy milk\n");
    const offered = provider.calls[0]!.tools.map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(["fs.read_text_file", "fs.write_file", "fs.list_directory"]));
    expect(provider.calls[0]!.tools.find((t) => t.name === "fs.read_text_file")!.inputSchema).toMatchObject({
      properties: { path: { type: "string" } },
    });
    await runtime.close();
  });

  it("a destructive tool (write_file) suspends the turn for approval; nothing is written", async () => {
    const { runtime } = runtimeWith(
      [{ toolCalls: [{ name: "fs.write_file", args: { path: join(server.dir, "evil.txt"), content: "x" } }] }],
      policyFor("fs"),
    );
    const result = await runtime.send({ agentId: "files", content: "write" });
    expect(result.status).toBe("suspended");
    expect(result.pendingApprovals).toEqual([expect.objectContaining({ name: "fs.write_file" })]);
    expect(() => readFileSync(join(server.dir, "evil.txt"))).toThrow();
    await runtime.close();
  });

  it("the policy blocks a server it does not list: its tools are not offered and a call is refused", async () => {
    const { runtime, provider } = runtimeWith(
      [{ toolCalls: [{ name: "fs.read_text_file", args: { path: join(server.dir, "notes.txt") } }] }, { text: "ok" }],
      policyFor("github"),
    );
    const result = await runtime.send({ agentId: "files", content: "read" });
    expect(provider.calls[0]!.tools.map((t) => t.name).filter((n) => n.startsWith("fs."))).toEqual([]);
    const [refused] = toolResults(result.messages);
    expect(refused).toMatchObject({ isError: true });
    expect(JSON.stringify(refused!.result)).not.toContain("buy milk");
    expect(result.status).toBe("complete");
    await runtime.close();
  });
});

describe("MCP tools and the runtime", { timeout: 60_000 }, () => {
  let bad: McpConnection;
  beforeAll(async () => {
    bad = await connectMcpServer({ name: "bad", ...misbehavingServer(), approval: "never" });
  }, SERVER_START_MS);
  afterAll(() => bad.close());

  const runtimeWith = (script: FakeScript, extra: { role?: string; budget?: { maxToolResultBytes: number } } = {}) => {
    const provider = createFakeProvider(script);
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "a", displayName: "A", ...(extra.role && { role: extra.role }) }]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "fake",
      tools: toolsWithMcp({ connections: [bad] }),
      policy: policyFor("bad"),
      ...(extra.budget && { budget: extra.budget }),
    });
    return { runtime, provider };
  };

  it("an annotation-less tool is refused in plan mode (planner role)", async () => {
    const { runtime, provider } = runtimeWith(
      [{ toolCalls: [{ name: "bad.plain", args: { value: "v" } }] }, { text: "ok" }],
      { role: "planner" },
    );
    const result = await runtime.send({ agentId: "a", content: "go" });
    expect(provider.calls[0]!.tools.map((t) => t.name)).not.toContain("bad.plain");
    expect(toolResults(result.messages)[0]).toMatchObject({ isError: true });
    expect(result.status).toBe("complete");
    await runtime.close();
  });

  it("caps a 10 MB result like any tool result, and the turn goes on", async () => {
    const { runtime, provider } = runtimeWith(
      [{ toolCalls: [{ name: "bad.huge", args: {} }] }, { text: "that was big" }],
      {
        budget: { maxToolResultBytes: 1_000 },
      },
    );
    const result = await runtime.send({ agentId: "a", content: "go" });
    const [huge] = toolResults(result.messages);
    // The cap covers the truncation notice too: what the model reads is at most 1,000 bytes.
    const text = String(huge!.result);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/^x{900,}\n…\[truncated: kept \d+ of 10000000 bytes\]$/);
    expect(result).toMatchObject({ status: "complete", text: "that was big" });
    expect(JSON.stringify(provider.calls[1]!.messages).length).toBeLessThan(10_000);
    await runtime.close();
  });

  it("uses the current tool list on each turn (after tools/list_changed)", async () => {
    const { runtime, provider } = runtimeWith([
      { toolCalls: [{ name: "bad.add_tool", args: {} }] },
      { text: "added" },
      { toolCalls: [{ name: "bad.late", args: {} }] },
      { text: "done" },
    ]);
    await runtime.send({ agentId: "a", content: "add a tool" });
    expect(provider.calls[0]!.tools.map((t) => t.name)).not.toContain("bad.late");
    await expect.poll(() => bad.tools().map((t) => t.name)).toContain("bad.late");
    const second = await runtime.send({ agentId: "a", content: "use it" });
    expect(provider.calls[2]!.tools.map((t) => t.name)).toContain("bad.late");
    expect(toolResults(second.messages)[0]).toMatchObject({ name: "bad.late", result: "late answer" });
    await runtime.close();
  });
});

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  createAgentRuntime,
  defaultPolicy,
  MemorySessionStore,
  type AuditEntry,
} from "@agentry/core";
import { toolsWithMcp } from "@agentry/core/mcp";
import { createFakeProvider } from "@agentry/core/testing";
import { useFilesystemServer } from "./servers.js";

describe("audit of MCP tool calls through the official filesystem server", { timeout: 60_000 }, () => {
  const server = useFilesystemServer("agentry-audit-secret-");

  it("audits a read (allowed), a write (denied) and a call of a server the policy leaves out", async () => {
    const delivered: AuditEntry[] = [];
    const provider = createFakeProvider([
      {
        toolCalls: [
          { id: "read", name: "fs.read_text_file", args: { path: join(server.dir, "notes.txt") } },
          { id: "write", name: "fs.write_file", args: { path: join(server.dir, "x.txt"), content: "secret" } },
          { id: "other", name: "gh.create_issue", args: { title: server.dir } },
        ],
      },
      { text: "Done." },
    ]);
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "files", displayName: "Files" }]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "fake",
      tools: toolsWithMcp({ connections: [server.fs] }),
      policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "network"], allowedMcpServers: ["fs"] },
      approve: () => Promise.resolve({ approved: false, reason: "read-only today" }),
      audit: (entry) => void delivered.push(entry),
    });
    const result = await runtime.send({ agentId: "files", content: "read my notes" });
    expect(result.status).toBe("complete");
    const byId = Object.fromEntries(delivered.map((entry) => [entry.toolCallId, entry]));
    expect(byId.read).toMatchObject({ tool: "fs.read_text_file", server: "fs", decision: "allowed", isError: false });
    expect(byId.write).toMatchObject({
      tool: "fs.write_file",
      server: "fs",
      decision: "denied",
      reason: "read-only today",
      isError: true,
    });
    expect(byId.other).toMatchObject({ tool: "gh.create_issue", decision: "refused", reason: "unknown_tool" });
    expect(JSON.stringify(delivered)).not.toContain(server.dir);
    expect((await runtime.auditLog(result.sessionId)).map((record) => record.entry)).toEqual(delivered);
  });
});

/**
 * MCP: an agent that works on files through the official MCP filesystem server, confined to a
 * temp folder, with writes going through approval.
 *
 * Runs offline on the bundled scripted provider; the server is the installed
 * `@modelcontextprotocol/server-filesystem` (in your own app: `command: "npx", args: ["-y",
 * "@modelcontextprotocol/server-filesystem", dir]`). With OPENAI_API_KEY or OPENAI_BASE_URL set it
 * uses `openai()` (OPENAI_MODEL, default gpt-4.1-mini).
 *
 *   npx tsx --tsconfig tsconfig.tests.json examples/mcp.ts
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  createAgentRegistry,
  createAgentRuntime,
  defaultPolicy,
  MemorySessionStore,
  type Provider,
} from "@agentry/core";
import { connectMcpServer, toolsWithMcp } from "@agentry/core/mcp";
import { openai } from "@agentry/core/openai";
import { createFakeProvider } from "@agentry/core/testing";

// A folder for the agent, with one file in it.
const dir = realpathSync(mkdtempSync(join(tmpdir(), "agentry-mcp-example-")));
writeFileSync(join(dir, "groceries.txt"), "milk\neggs\ncoffee\n");

// The server's script from node_modules, started with this Node: no PATH lookup, no network.
const serverPackage = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/package.json");
const serverScript = join(
  dirname(serverPackage),
  (JSON.parse(readFileSync(serverPackage, "utf8")) as { bin: Record<string, string> }).bin["mcp-server-filesystem"]!,
);
const fs = await connectMcpServer({ name: "fs", command: process.execPath, args: [serverScript, dir] });
console.log(
  `Connected to MCP server "fs": ${fs.tools().length} tools, e.g. ${fs
    .tools()
    .slice(0, 3)
    .map((t) => t.name)
    .join(", ")}`,
);

/** The offline model: list the folder, read the list, write a sorted copy, then answer. */
function scriptedModel(): Provider {
  return createFakeProvider((request) => {
    const last = request.messages[request.messages.length - 1]!;
    const steps = request.messages.filter((m) => m.role === "tool").length;
    if (last.role === "user") return { toolCalls: [{ name: "fs.list_directory", args: { path: dir } }] };
    if (steps === 1) return { toolCalls: [{ name: "fs.read_text_file", args: { path: join(dir, "groceries.txt") } }] };
    if (steps === 2) {
      const read = last.role === "tool" ? (last.content[0]?.result as { content: string }) : undefined;
      const sorted = (read?.content ?? "").split("\n").filter(Boolean).sort().join("\n") + "\n";
      return {
        toolCalls: [{ name: "fs.write_file", args: { path: join(dir, "groceries-sorted.txt"), content: sorted } }],
      };
    }
    return { text: "I wrote groceries-sorted.txt with your list in alphabetical order." };
  });
}
const env = globalThis.process?.env ?? {};
const live = Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
const provider = live ? openai() : scriptedModel();

const runtime = createAgentRuntime({
  registry: createAgentRegistry([
    { agentId: "files", displayName: "File helper", systemPrompt: `You manage the files in ${dir}.` },
  ]),
  store: new MemorySessionStore(),
  providers: { main: provider },
  defaultModel: live ? (env.OPENAI_MODEL ?? "gpt-4.1-mini") : "scripted",
  // The server's current tools on every turn (the list may change while the app runs).
  tools: toolsWithMcp({ connections: [fs] }),
  // MCP tools are "network" and gated by allowedMcpServers: both must let them through.
  policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "network"], allowedMcpServers: ["fs"] },
  // write_file is destructive (per the server's annotations): it asks here first.
  approve: (request) => {
    console.log(`approve? ${request.name}(${JSON.stringify(request.args).slice(0, 80)}) → yes`);
    return Promise.resolve({ approved: true });
  },
});
runtime.events.on("event", (event) => {
  if (event.type === "tool_call_update" && event.status === "start") console.log(`→ ${event.name}`);
});

try {
  const result = await runtime.send({ agentId: "files", content: "Sort my grocery list into a new file." });
  console.log(`assistant: ${result.text}`);
  console.log(`groceries-sorted.txt: ${JSON.stringify(readFileSync(join(dir, "groceries-sorted.txt"), "utf8"))}`);
  console.log(`done: ${result.status}`);
} finally {
  await runtime.close();
  await fs.close();
  rmSync(dir, { recursive: true, force: true });
}

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ModelRequest,
} from "@agentry/core";
import { createInspector, type RedactInfo } from "@agentry/core/inspector";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";

// One secret, planted everywhere a tool, the model or the host can put text: every answer of the
// inspector (JSON API, live stream, export) must show it masked.
const SECRET = "tok_SECRET42";
const isChild = (request: ModelRequest) => request.caller?.parentId === "sub1";

function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  if (isChild(request)) {
    if (last.role === "user") return { toolCalls: [{ id: "c1", name: "lookup", args: { q: "token" } }] };
    return { toolCalls: [{ id: "f1", name: "finish_subtask", args: { result: { token: SECRET } } }] };
  }
  if (last.role === "user" && text.includes("fail")) return { error: new Error(`provider rejected key ${SECRET}`) };
  if (last.role === "user" && text.includes("refund"))
    return { toolCalls: [{ id: "r1", name: "refund", args: { card: SECRET } }] };
  if (last.role === "user" && text.includes("ask"))
    return {
      toolCalls: [
        {
          id: "q1",
          name: "ask_user",
          args: { question: `Use ${SECRET}?`, severity: "minor", options: [{ label: "yes", value: "y" }] },
        },
      ],
    };
  if (last.role === "user") {
    const instructions = "find the token";
    const schema = { type: "object", properties: { token: { type: "string" } }, required: ["token"] };
    return {
      thinking: `the user sent ${SECRET}`,
      toolCalls: [
        { id: "sub1", name: "run_subtask", args: { title: `Find ${SECRET}`, instructions, output_schema: schema } },
        { id: "c2", name: "leak", args: { q: SECRET } },
      ],
    };
  }
  return { text: `All done: ${SECRET}`, usage: { inputTokens: 9, outputTokens: 3 } };
}

async function setUp() {
  const lookup = defineTool({
    name: "lookup",
    description: "Looks a thing up",
    input: z.object({ q: z.string() }),
    execute: () => ({ token: SECRET }),
  });
  const leak = defineTool({
    name: "leak",
    description: "Fails with a secret in its error",
    input: z.object({ q: z.string() }),
    execute: () => {
      throw new Error(`auth failed for ${SECRET}`);
    },
  });
  const refund = defineTool({
    name: "refund",
    description: "Refunds",
    input: z.object({ card: z.string() }),
    requiresApproval: true,
    execute: () => "ok",
  });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([
      {
        agentId: "finder",
        displayName: "Finder",
        toolAllowlist: ["lookup", "leak", "refund", "run_subtask", "finish_subtask", "ask_user"],
      },
    ]),
    store: new MemorySessionStore(),
    providers: { fake: createFakeProvider(script) },
    defaultModel: "fake-model",
    tools: [lookup, leak, refund],
  });
  const infos: RedactInfo[] = [];
  const inspector = createInspector({
    runtime,
    authorize: () => ({ scopePrefix: "", canAct: false }),
    redact: (value, info) => {
      infos.push(info);
      return JSON.parse(JSON.stringify(value).replaceAll(SECRET, "[masked]"));
    },
    livePollMs: 10,
  });
  const text = async (path: string) => {
    const response = await inspector(new Request(`http://x${path}`));
    expect(response.status).toBe(200);
    return response.text();
  };
  return { runtime, inspector, text, infos };
}

/** Every node id of a turn tree. */
function nodeIds(node: { id: string; children: unknown[] }): string[] {
  return [node.id, ...node.children.flatMap((child) => nodeIds(child as typeof node))];
}

/** The live stream's text until `until` matches it (or 5 s pass). */
async function liveText(inspector: (request: Request) => Promise<Response>, path: string, until: RegExp) {
  const controller = new AbortController();
  const response = await inspector(new Request(`http://x${path}`, { signal: controller.signal }));
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 5_000;
  while (!until.test(text) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  controller.abort();
  await reader.cancel().catch(() => {});
  return text;
}

describe("the inspector's redaction choke point", () => {
  it("masks a secret in tool errors, sub-task results and finish_subtask arguments, text and errors, on every view and export", async () => {
    const { runtime, inspector, text, infos } = await setUp();
    const turn = await runtime.send({ agentId: "finder", content: `here is ${SECRET}` });
    expect(turn.status).toBe("complete");
    const failed = await runtime.send({ agentId: "finder", content: "fail", session: "create" });
    expect(failed.status).toBe("error");
    const asked = await runtime.send({ agentId: "finder", content: "ask", session: "create" });
    const refunded = await runtime.send({ agentId: "finder", content: "refund", session: "create" });
    expect([asked.status, refunded.status]).toEqual(["suspended", "suspended"]);

    const detail = await text(`/api/sessions/${turn.sessionId}`);
    // The tool's error is shown in the tree, masked.
    expect(detail).toContain("auth failed for [masked]");
    const tree = JSON.parse(detail) as { turns: { id: string; children: unknown[] }[] };
    const pages = [detail];
    for (const id of tree.turns.flatMap(nodeIds))
      pages.push(await text(`/api/sessions/${turn.sessionId}/nodes/${encodeURIComponent(id)}`));
    pages.push(await text(`/api/sessions/${failed.sessionId}`));
    const exported = await text(`/api/sessions/${turn.sessionId}/turns/${turn.runId}/export`);
    const pending = await text("/api/pending");
    pages.push(exported, pending);
    pages.push(await text(`/api/sessions/${failed.sessionId}/turns/${failed.runId}/export`));
    pages.push(await text("/api/sessions"));
    pages.push(await text("/api/tasks"));
    pages.push(await text("/api/cost?groupBy=scope"));
    pages.push(await liveText(inspector, `/api/sessions/${turn.sessionId}/live`, /event: turn/));
    pages.push(await liveText(inspector, `/api/sessions/${failed.sessionId}/live`, /event: turn/));
    for (const page of pages) expect(page).not.toContain(SECRET);

    // The sub-task's finish_subtask arguments and its tool's result, masked in the exported test.
    expect(exported).toContain('"token": "[masked]"');
    expect(JSON.parse(pending).approvals[0].request.args).toEqual({ card: "[masked]" });
    expect(JSON.parse(pending).questions[0].question.question).toBe("Use [masked]?");
    const parts = new Set(infos.map((info) => `${info.part}:${info.tool}`));
    for (const part of ["args:finish_subtask", "result:run_subtask", "result:leak", "text:", "error:"])
      expect(parts).toContain(part);
  });

  it("a session search does not match text that redaction hides", async () => {
    const { runtime, text } = await setUp();
    await runtime.send({ agentId: "finder", content: "hello" });
    const found = JSON.parse(await text(`/api/sessions?q=${SECRET}`)) as { items: unknown[] };
    expect(found.items).toEqual([]);
    const masked = JSON.parse(await text(`/api/sessions?q=masked`)) as { items: unknown[] };
    expect(masked.items).toHaveLength(1);
  });

  it("only the choke point reads session records for what the inspector shows", () => {
    const dir = join(import.meta.dirname, "..", "..", "src", "inspector");
    // These read records for figures only: turn states, cost sums, the latest turn's seq.
    const figuresOnly = new Set(["redact-record.ts", "session-rows.ts", "cost-view.ts", "live-stream.ts"]);
    for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts"))) {
      const source = readFileSync(join(dir, file), "utf8");
      if (!figuresOnly.has(file)) expect(source, file).not.toMatch(/store\.load\(/);
    }
    const live = readFileSync(join(dir, "live-stream.ts"), "utf8");
    expect(live.match(/store\.load\(/g)).toHaveLength(1); // findChain: seqs and turn starts only
  });
});

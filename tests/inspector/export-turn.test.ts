import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ModelRequest,
} from "@agentry/core";
import { createInspector } from "@agentry/core/inspector";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..", "..");

function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (request.caller?.parentId === "sub1") {
    return last.role === "user"
      ? { toolCalls: [{ id: "c1", name: "lookup", args: { q: "bad" } }] }
      : { text: "child done", usage: { inputTokens: 5, outputTokens: 1 } };
  }
  if (last.role === "user")
    return {
      text: "Let me check.",
      toolCalls: [{ id: "sub1", name: "run_subtask", args: { title: "Check", instructions: "look up bad" } }],
    };
  const results = last.role === "tool" ? last.content : [];
  if (results.some((r) => r.name === "run_subtask"))
    return { toolCalls: [{ id: "c2", name: "lookup", args: { q: "good" } }] };
  return { text: "All done: found it.", usage: { inputTokens: 9, outputTokens: 3 } };
}

async function exported() {
  const lookup = defineTool({
    name: "lookup",
    description: "Looks a thing up",
    input: z.object({ q: z.string() }),
    execute: ({ q }) => {
      if (q === "bad") throw new Error("lookup failed: no such thing");
      return { found: q, rows: [1, 2, 3] };
    },
  });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([
      {
        agentId: "finder",
        displayName: "Finder",
        systemPrompt: "Find things.",
        toolAllowlist: ["lookup", "run_subtask"],
      },
    ]),
    store: new MemorySessionStore(),
    providers: { fake: createFakeProvider(script) },
    defaultModel: "fake-model",
    tools: [lookup],
  });
  const turn = await runtime.send({ agentId: "finder", content: "find it" });
  expect(turn.status).toBe("complete");
  const inspector = createInspector({ runtime, authorize: () => ({ scopePrefix: "", canAct: false }) });
  const response = await inspector(new Request(`http://x/api/sessions/${turn.sessionId}/turns/${turn.runId}/export`));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="replay-finder-.+\.test\.ts"$/);
  return { source: await response.text(), turn };
}

/** A turn that ended suspended on an approval, exported. */
async function exportedSuspended(): Promise<string> {
  const refund = defineTool({
    name: "refund",
    description: "Refunds an order",
    input: z.object({ order: z.string() }),
    requiresApproval: true,
    execute: ({ order }) => `refunded ${order}`,
  });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "billing", displayName: "Billing", toolAllowlist: ["refund"] }]),
    store: new MemorySessionStore(),
    providers: {
      fake: createFakeProvider([
        { text: "Refunding.", toolCalls: [{ id: "r1", name: "refund", args: { order: "A-1" } }] },
      ]),
    },
    defaultModel: "fake-model",
    tools: [refund],
  });
  const turn = await runtime.send({ agentId: "billing", content: "refund A-1" });
  expect(turn.status).toBe("suspended");
  const inspector = createInspector({ runtime, authorize: () => ({ scopePrefix: "", canAct: false }) });
  const response = await inspector(new Request(`http://x/api/sessions/${turn.sessionId}/turns/${turn.runId}/export`));
  return response.text();
}

/** Runs one test file with vitest in a child process; resolves with its exit code and output. */
async function runVitest(file: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run("npx", ["vitest", "run", "--project", "unit", file], { cwd: repo, timeout: 120_000 });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("export as test", () => {
  it("a turn with a sub-task and a tool error (and one suspended on an approval) becomes a vitest file that passes, and fails once its recorded outcome is changed", async () => {
    const { source } = await exported();
    expect(source).toContain('"c1"');
    expect(source).toContain("lookup failed: no such thing");
    const dir = join(repo, "tests", "inspector", `exported-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const file = join(dir, "replay.test.ts");
      writeFileSync(file, source);
      // A turn suspended on an approval replays to the same suspension.
      writeFileSync(join(dir, "suspended.test.ts"), await exportedSuspended());
      const passing = await runVitest(dir);
      expect(passing.output).toMatch(/2 passed/);
      expect(passing.code).toBe(0);
      // The same file with another recorded outcome (the expected final text) fails.
      const at = source.indexOf("const expected = ");
      expect(at).toBeGreaterThan(0);
      writeFileSync(
        file,
        source.slice(0, at) + source.slice(at).replace('"text": "All done: found it."', '"text": "Something else."'),
      );
      const failing = await runVitest(file);
      expect(failing.code).not.toBe(0);
      expect(failing.output).toMatch(/1 failed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

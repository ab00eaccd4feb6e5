import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  ApprovalAlreadyResolvedError,
  createAgentRegistry,
  InvalidArgumentError,
  type HistoryRecord,
  type ModelRequest,
  type ToolResultPart,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "./helpers.js";

const asker = { agentId: "asker", displayName: "Asker", role: "actor" };
const question = {
  question: "Which list?",
  context: "Two lists match.",
  severity: "minor",
  options: [
    { label: "Groceries", value: "groceries" },
    { label: "Chores", value: "chores" },
  ],
  allow_custom: true,
};

/** Asks once, then repeats what the tool said. */
function askScript(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: `answer: ${JSON.stringify((last.content[0] as ToolResultPart).result)}` };
  return { text: "Let me ask.", toolCalls: [{ id: "ask1", name: "ask_user", args: question }] };
}

const setup = (overrides: Parameters<typeof makeRuntime>[1] = {}) => {
  const made = makeRuntime(askScript, { ...overrides });
  return made;
};

describe("ask_user and answerQuestion", () => {
  it("suspends the turn (never asking the host's approve), emits a question and lists it apart from approvals", async () => {
    let asked = 0;
    const { runtime, events, store } = setup({
      registry: (await import("@agentry/core")).createAgentRegistry([asker]),
      approve: async () => (asked++, { approved: true }),
    });
    const result = await runtime.send({ agentId: "asker", content: "add milk" });
    expect(result.status).toBe("suspended");
    expect(asked).toBe(0);
    const questionEvents = events.filter((e) => e.type === "question");
    expect(questionEvents).toHaveLength(1);
    expect(events.some((e) => e.type === "approval_request")).toBe(false);
    const [pending] = await runtime.pendingQuestions();
    expect(pending).toMatchObject({
      sessionId: result.sessionId,
      agentId: "asker",
      question: { type: "question", format_version: "1.0", question: "Which list?" },
    });
    // The event names the ask_user call, so a UI can put the question card where the call is.
    const call = events.find((e) => e.type === "tool_call_update" && e.name === "ask_user");
    expect(call).toBeDefined();
    expect(questionEvents[0]).toMatchObject({
      questionId: pending!.questionId,
      toolCallId: (call as { toolCallId: string }).toolCallId,
    });
    expect(await runtime.pendingApprovals()).toEqual([]);
    // The assistant message that asks is stored as a question.
    const records = await store.load(result.sessionId);
    const assistant = records.flatMap((r) =>
      r.kind === "message" && r.message.role === "assistant" ? [r.message] : [],
    );
    expect(assistant[0]!.messageType).toBe("question");
  });

  it("answers with an option: the model reads value and label; a second answer is ApprovalAlreadyResolvedError", async () => {
    const { runtime } = setup({ registry: (await import("@agentry/core")).createAgentRegistry([asker]) });
    await runtime.send({ agentId: "asker", content: "add milk" });
    const [pending] = await runtime.pendingQuestions();
    const resumed = await runtime.answerQuestion(pending!.questionId, { value: "chores" });
    expect(resumed.status).toBe("complete");
    expect(resumed.text).toBe('answer: {"answer":"chores","label":"Chores"}');
    await expect(runtime.answerQuestion(pending!.questionId, { value: "chores" })).rejects.toSatisfy((e) =>
      ApprovalAlreadyResolvedError.isInstance(e),
    );
    expect(await runtime.pendingQuestions()).toEqual([]);
  });

  it("refuses an answer the question does not allow, changing nothing; takes free text with allow_custom", async () => {
    const { runtime, store } = setup({ registry: (await import("@agentry/core")).createAgentRegistry([asker]) });
    const suspended = await runtime.send({ agentId: "asker", content: "add milk" });
    const [pending] = await runtime.pendingQuestions();
    const before = (await store.load(suspended.sessionId)).length;
    await expect(runtime.answerQuestion(pending!.questionId, { value: "nope" })).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    await expect(runtime.answerQuestion(pending!.questionId, {} as never)).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    // An approval id is not a question id and the other way round.
    await expect(runtime.resolveApproval(pending!.questionId, { approved: true })).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    expect((await store.load(suspended.sessionId)).length).toBe(before);
    const resumed = await runtime.answerQuestion(pending!.questionId, { text: "the shared one" });
    expect(resumed.text).toBe('answer: {"answer":"the shared one","custom":true}');
  });

  it("refuses free text when the question does not allow it", async () => {
    const strict = (request: ModelRequest): FakeTurn => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool") return { text: "done" };
      return { toolCalls: [{ name: "ask_user", args: { ...question, allow_custom: false } }] };
    };
    const { runtime } = makeRuntime(strict, { registry: (await import("@agentry/core")).createAgentRegistry([asker]) });
    await runtime.send({ agentId: "asker", content: "add milk" });
    const [pending] = await runtime.pendingQuestions();
    await expect(runtime.answerQuestion(pending!.questionId, { text: "mine" })).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    expect(await runtime.pendingQuestions()).toHaveLength(1);
  });

  it("a host tool that took the name ask_user stays an approval (listed, resolved), never a question", async () => {
    const { defineTool, createAgentRegistry } = await import("@agentry/core");
    const { z } = await import("zod");
    const hostAsk = defineTool({
      name: "ask_user",
      description: "Host's own",
      input: z.object({}).passthrough(),
      requiresApproval: true,
      execute: () => "host ran",
    });
    const { runtime, events } = makeRuntime(askScript, { registry: createAgentRegistry([asker]), tools: [hostAsk] });
    await runtime.send({ agentId: "asker", content: "add milk" });
    expect(await runtime.pendingQuestions()).toEqual([]);
    const [approval] = await runtime.pendingApprovals();
    expect(approval?.request.name).toBe("ask_user");
    expect(events.some((e) => e.type === "question")).toBe(false);
    const resumed = await runtime.resolveApproval(approval!.requestId, { approved: true });
    expect(resumed.text).toBe('answer: "host ran"');
  });

  it("an agent without a role is in Act mode: offered ask_user (not the planner's tools), unless its denylist takes it away", async () => {
    const { runtime, provider } = makeRuntime([{ text: "hi" }, { text: "hi" }], {
      registry: createAgentRegistry([
        { agentId: "general", displayName: "General" },
        { agentId: "quiet", displayName: "Quiet", toolDenylist: ["ask_user"] },
      ]),
    });
    await runtime.send({ agentId: "general", content: "hello" });
    const offered = provider.calls[0]!.tools.map((t) => t.name);
    expect(offered).toContain("ask_user");
    expect(offered).not.toContain("create_artifact");
    expect(offered).not.toContain("request_build_mode");
    await runtime.send({ agentId: "quiet", content: "hello" });
    expect(provider.calls[1]!.tools.map((t) => t.name)).not.toContain("ask_user");
  });

  it("an agent without a role that calls ask_user suspends on a question, answered like an actor's", async () => {
    const { runtime, events } = makeRuntime(askScript);
    const asked = await runtime.send({ agentId: "general", content: "add milk" });
    expect(asked.status).toBe("suspended");
    expect(events.some((e) => e.type === "question")).toBe(true);
    const [pending] = await runtime.pendingQuestions();
    const answered = await runtime.answerQuestion(pending!.questionId, { value: "chores" });
    expect(answered.text).toContain("chores");
  });
});

const root = fileURLToPath(new URL("../..", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));

/** Runs the worker fixture as its own process; resolves with its last JSON line. */
function runWorker(args: string[]): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ["--import", "tsx", worker, "sqlite", ...args], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>)
        : reject(new Error(`worker failed (${code}): ${stderr}`)),
    );
  });
}

describe("a question across processes", { timeout: 240_000 }, () => {
  it("asked in one process that then exits, answered exactly once from a second process", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-question-")), "sessions.db");
    const asked = await runWorker([path, "ask"]);
    expect(asked).toMatchObject({ status: "suspended", approvals: 0 });
    expect(typeof asked.questionId).toBe("string");
    const answered = await runWorker([path, "answer", asked.questionId as string, "chores"]);
    expect(answered).toEqual({
      status: "complete",
      text: 'after tool: {"answer":"chores","label":"Chores"}',
      again: "ApprovalAlreadyResolvedError",
      pending: 0,
    });
    const store = new SqliteSessionStore({ path });
    try {
      const [session] = await store.listSessions();
      const records = await store.load(session!.sessionId);
      const results = records.filter(
        (r): r is Extract<HistoryRecord, { kind: "tool_result" }> => r.kind === "tool_result",
      );
      expect(results.map((r) => r.result.result)).toEqual([{ answer: "chores", label: "Chores" }]);
    } finally {
      store.close();
    }
  });
});

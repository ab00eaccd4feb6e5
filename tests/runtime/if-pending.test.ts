import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  ApprovalAlreadyResolvedError,
  ApprovalSupersededError,
  InvalidArgumentError,
  PendingDecisionError,
  type ModelRequest,
  type RuntimeEvent,
  type TurnResult,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { historyProblems, type FakeTurn } from "@agentry/core/testing";
import { makeRuntime, textOf } from "./helpers.js";

/** Deletes "milk" (approval needed) when asked to; answers anything else with what it saw last. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content.map((r) => r.result))}` };
  const text = textOf(last);
  return text.includes("delete")
    ? { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] }
    : { text: `re: ${text}` };
}

/** Resolves with whether `promise` settled within a few turns of the event loop. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

/** The root conversation of a session as `role: text` lines. */
async function transcript(
  store: { load: (id: string) => Promise<{ kind: string; frame: string | null; message?: { role: string } }[]> },
  sessionId: string,
) {
  return (await store.load(sessionId)).flatMap((r) =>
    r.kind === "message" && r.frame === null ? [`${r.message!.role}: ${textOf(r.message as never)}`] : [],
  );
}

describe("SendInput.ifPending", () => {
  it('"queue" (the default): the message waits behind the decision, says so at once, then runs after the resumed turn', async () => {
    const { runtime, store, todo } = makeRuntime(script);
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();

    const seen: RuntimeEvent[] = [];
    const streamed = (async () => {
      for await (const event of runtime.stream({ agentId: "todo", content: "any news?", session: suspended.sessionId }))
        seen.push(event);
    })();
    const second = runtime.send({ agentId: "todo", content: "hello?", session: suspended.sessionId });
    expect(await settledSoon(second)).toBe(false);
    expect(seen.map((e) => e.type)).toEqual(["message_queued"]);
    expect(seen[0]).toMatchObject({ sessionId: suspended.sessionId, pendingRequestIds: [pending!.requestId] });
    // Nothing was discarded: the approval is still there for the approver.
    expect((await runtime.pendingApprovals()).map((p) => p.requestId)).toEqual([pending!.requestId]);

    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed).toMatchObject({ status: "complete", text: 'tool said: ["deleted milk"]' });
    await streamed;
    expect(await second).toMatchObject({ status: "complete", text: "re: hello?" });
    expect(seen.at(-1)).toMatchObject({ type: "done", result: { text: "re: any news?" } });
    expect(todo.items).toEqual([]);
    // Arrival order, and a history every provider takes.
    expect(await transcript(store, suspended.sessionId)).toEqual([
      "user: delete milk",
      expect.stringMatching(/^assistant/),
      expect.stringMatching(/^tool: .*deleted milk/),
      'assistant: tool said: ["deleted milk"]',
      "user: any news?",
      "assistant: re: any news?",
      "user: hello?",
      "assistant: re: hello?",
    ]);
  });

  it('"queue": a decision made by another runtime on the same store releases the queued message', async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-queue-")), "s.db");
    const a = makeRuntime(script, { store: new SqliteSessionStore({ path }) });
    const b = makeRuntime(script, { store: new SqliteSessionStore({ path }) });
    const suspended = await a.runtime.send({ agentId: "todo", content: "delete milk" });
    const queued = a.runtime.send({ agentId: "todo", content: "still there?", session: suspended.sessionId });
    expect(await settledSoon(queued)).toBe(false);
    const [pending] = await b.runtime.pendingApprovals();
    await b.runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(await queued).toMatchObject({ status: "complete", text: "re: still there?" });
  });

  it('"reject": throws PendingDecisionError naming the pending requests, and stores nothing', async () => {
    const { runtime, store } = makeRuntime(script);
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const before = (await store.load(suspended.sessionId)).length;
    const [pending] = await runtime.pendingApprovals();
    const error = await runtime
      .send({ agentId: "todo", content: "hi", session: suspended.sessionId, ifPending: "reject" })
      .catch((e: unknown) => e);
    expect(PendingDecisionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ sessionId: suspended.sessionId, requestIds: [pending!.requestId] });
    expect((await store.load(suspended.sessionId)).length).toBe(before);
    expect((await runtime.resolveApproval(pending!.requestId, { approved: true })).status).toBe("complete");
  });

  it('"supersede": denies the pending decisions as superseded, says so, and a late decision gets ApprovalSupersededError', async () => {
    const { runtime, store, todo, events } = makeRuntime(script);
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();
    const next = await runtime.send({
      agentId: "todo",
      content: "never mind",
      session: suspended.sessionId,
      ifPending: "supersede",
    });
    expect(next).toMatchObject({ status: "complete", text: "re: never mind" });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "approval_resolved",
        requestId: pending!.requestId,
        approved: false,
        reason: "superseded",
      }),
    );
    const late = await runtime.resolveApproval(pending!.requestId, { approved: true }).catch((e: unknown) => e);
    expect(ApprovalSupersededError.isInstance(late)).toBe(true);
    // Still an "already resolved" for hosts that catch that.
    expect(ApprovalAlreadyResolvedError.isInstance(late)).toBe(true);
    expect(todo.items).toEqual(["milk"]);
    const messages = (await store.load(suspended.sessionId)).flatMap((r) =>
      r.kind === "message" && r.frame === null ? [r.message] : [],
    );
    expect(historyProblems(messages)).toEqual([]);
  });

  it("a question waits the same way, and an answer releases the queue", async () => {
    const { runtime } = makeRuntime(
      (request) => {
        const last = request.messages.at(-1)!;
        if (last.role === "tool") return { text: `answered ${JSON.stringify(last.content[0]!.result)}` };
        if (textOf(last) === "plan it")
          return {
            toolCalls: [
              {
                name: "ask_user",
                args: { question: "Which day?", severity: "major", options: [{ label: "Mon", value: "mon" }] },
              },
            ],
          };
        return { text: `re: ${textOf(last)}` };
      },
      { tools: [], registry: createAgentRegistry([{ agentId: "general", displayName: "General", role: "actor" }]) },
    );
    const asked = await runtime.send({ agentId: "general", content: "plan it" });
    expect(asked.status).toBe("suspended");
    const queued = runtime.send({ agentId: "general", content: "and then?", session: asked.sessionId });
    expect(await settledSoon(queued)).toBe(false);
    const [question] = await runtime.pendingQuestions();
    await runtime.answerQuestion(question!.questionId, { value: "mon" });
    expect(await queued).toMatchObject({ text: "re: and then?" });
  });

  it("messages queue in arrival order, also one sent after the decision while others wait", async () => {
    const { runtime } = makeRuntime(script);
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();
    const order: string[] = [];
    const send = (content: string) =>
      runtime
        .send({ agentId: "todo", content, session: suspended.sessionId })
        .then((r: TurnResult) => (order.push(r.text), r));
    const first = send("one");
    const second = send("two");
    await settledSoon(first);
    const resolved = runtime.resolveApproval(pending!.requestId, { approved: true });
    const third = send("three");
    await Promise.all([first, second, third, resolved]);
    expect(order).toEqual(["re: one", "re: two", "re: three"]);
  });

  it("rejects an unknown ifPending before anything happens", async () => {
    const { runtime } = makeRuntime(script);
    await expect(runtime.send({ agentId: "todo", content: "hi", ifPending: "later" as never })).rejects.toThrow(
      InvalidArgumentError,
    );
  });
});

import { describe, expect, it } from "vitest";
import type { ModelRequest } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { ProviderError } from "@agentry/core";
import { makeInspector, todoScript } from "./helpers.js";

function subtaskScript(request: ModelRequest, index: number): FakeTurn {
  if (request.caller?.parentId === "sub1") return { text: "child answer", usage: { inputTokens: 7, outputTokens: 1 } };
  const last = request.messages.at(-1)!;
  if (last.role === "user" && typeof last.content === "string" && last.content.includes("research")) {
    return {
      toolCalls: [{ id: "sub1", name: "run_subtask", args: { title: "Look it up", instructions: "look" } }],
      usage: { inputTokens: 11, outputTokens: 2 },
    };
  }
  if (last.role === "user" && typeof last.content === "string" && last.content.includes("fail")) {
    return { error: new ProviderError("upstream exploded", { status: 500, retryable: false, provider: "fake" }) };
  }
  return todoScript(request) ?? { text: String(index) };
}

describe("inspector: sessions", () => {
  it("lists newest first, paginates with a cursor, filters by state, agent and scope, and searches id and text", async () => {
    const { runtime, getJson } = makeInspector(subtaskScript);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await runtime.send({ agentId: "general", content: `hello ${i}`, session: "create", scope: "tenant-a/x" }))
          .sessionId,
      );
    const waiting = await runtime.send({
      agentId: "todo",
      content: "delete milk",
      session: "create",
      scope: "tenant-a/y",
    });
    const failed = await runtime.send({
      agentId: "general",
      content: "please fail",
      session: "create",
      scope: "tenant-b/z",
    });
    expect(failed.status).toBe("error");

    const page1 = await getJson("/api/sessions?limit=3");
    expect(page1.body.items.map((r: { sessionId: string }) => r.sessionId)).toEqual([
      failed.sessionId,
      waiting.sessionId,
      ids[4],
    ]);
    const page2 = await getJson(`/api/sessions?limit=3&cursor=${page1.body.nextCursor}`);
    expect(page2.body.items.map((r: { sessionId: string }) => r.sessionId)).toEqual([ids[3], ids[2], ids[1]]);
    const page3 = await getJson(`/api/sessions?limit=3&cursor=${page2.body.nextCursor}`);
    expect(page3.body.items.map((r: { sessionId: string }) => r.sessionId)).toEqual([ids[0]]);
    expect(page3.body.nextCursor).toBeUndefined();

    const states = (await getJson("/api/sessions")).body.items.map((r: { state: string }) => r.state);
    expect(states).toEqual(["failed", "waiting", "idle", "idle", "idle", "idle", "idle"]);
    expect(
      (await getJson("/api/sessions?state=waiting")).body.items.map((r: { sessionId: string }) => r.sessionId),
    ).toEqual([waiting.sessionId]);
    expect(
      (await getJson("/api/sessions?state=failed")).body.items.map((r: { sessionId: string }) => r.sessionId),
    ).toEqual([failed.sessionId]);
    expect((await getJson("/api/sessions?agentId=todo")).body.items).toHaveLength(1);
    expect((await getJson("/api/sessions?scopePrefix=tenant-b/")).body.items).toHaveLength(1);
    // A requested prefix never widens the caller's own.
    expect((await getJson("/api/sessions?scopePrefix=tenant-b/", "alice")).body.items).toEqual([]);
    expect(
      (await getJson("/api/sessions?q=hello%203")).body.items.map((r: { sessionId: string }) => r.sessionId),
    ).toEqual([ids[3]]);
    expect(
      (await getJson(`/api/sessions?q=${ids[2]!.slice(0, 12)}`)).body.items.map(
        (r: { sessionId: string }) => r.sessionId,
      ),
    ).toEqual([ids[2]]);
    expect((await getJson("/api/sessions?state=bogus")).status).toBe(400);
    // States are remembered between listings, and read again once a session changed.
    await runtime.send({ agentId: "general", content: "fail now", session: ids[0], scope: "tenant-a/x" });
    const failedNow = (await getJson("/api/sessions?state=failed")).body.items.map(
      (r: { sessionId: string }) => r.sessionId,
    );
    expect(failedNow).toEqual([ids[0], failed.sessionId]);
  });

  it("shows each turn's tree: model calls with tokens, cost and what the model saw; a sub-task with its child calls; errors", async () => {
    const { runtime, getJson } = makeInspector(subtaskScript);
    const turn = await runtime.send({ agentId: "todo", content: "research this" });
    const failed = await runtime.send({ agentId: "todo", content: "now fail", session: turn.sessionId });
    const { body } = await getJson(`/api/sessions/${turn.sessionId}`);
    expect(body.session).toMatchObject({ sessionId: turn.sessionId, state: "failed" });
    const [first, second] = body.turns;
    expect(first).toMatchObject({
      kind: "turn",
      runId: turn.runId,
      turnNumber: 1,
      status: "complete",
      label: "Turn 1: research this",
    });
    const call = first.children[0];
    expect(call).toMatchObject({
      kind: "model_call",
      label: "fake-model",
      tokens: { input: 11, output: 2 },
      costUsd: 0.015,
      status: "ok",
    });
    const subtask = call.children[0];
    expect(subtask).toMatchObject({
      kind: "subtask",
      label: "sub-task: Look it up",
      status: "ok",
      tokens: { input: 7, output: 1 },
    });
    expect(subtask.children[0]).toMatchObject({ kind: "model_call", tokens: { input: 7, output: 1 } });
    expect(second).toMatchObject({
      runId: failed.runId,
      status: "error",
      error: expect.stringContaining("upstream exploded"),
    });
    expect(second.children.at(-1)).toMatchObject({ kind: "model_call", status: "error" });

    const detail = await getJson(`/api/sessions/${turn.sessionId}/nodes/${encodeURIComponent(call.id)}`);
    expect(detail.body).toMatchObject({ kind: "model_call", model: "fake-model", provider: "fake", messagesCount: 1 });
    expect(detail.body.system).toContain("Todo");
    expect(detail.body.tools.map((t: { name: string }) => t.name)).toContain("run_subtask");
    expect(detail.body.response.content[0]).toMatchObject({ type: "tool_call", name: "run_subtask" });
    const child = await getJson(`/api/sessions/${turn.sessionId}/nodes/${encodeURIComponent(subtask.children[0].id)}`);
    expect(child.body.system).toMatch(/sub-agent/);
    expect((await getJson(`/api/sessions/${turn.sessionId}/nodes/m:nope`)).status).toBe(404);
  });

  it("sums tokens, cost and turns per agent, scope and day from the stored usage", async () => {
    const { runtime, getJson } = makeInspector();
    await runtime.send({ agentId: "general", content: "hi", scope: "tenant-a/x" });
    await runtime.send({ agentId: "general", content: "hi again", scope: "tenant-a/x" });
    await runtime.send({ agentId: "todo", content: "add it", scope: "tenant-b/y" });
    const byAgent = (await getJson("/api/cost?groupBy=agent")).body.rows;
    expect(byAgent).toEqual([
      { key: "todo", tokens: { input: 80, output: 11, cached: 0 }, costUsd: expect.closeTo(0.102, 9), turns: 1 },
      { key: "general", tokens: { input: 20, output: 4, cached: 0 }, costUsd: expect.closeTo(0.028, 9), turns: 2 },
    ]);
    const byScope = (await getJson("/api/cost?groupBy=scope", "alice")).body.rows;
    expect(byScope.map((r: { key: string; turns: number }) => [r.key, r.turns])).toEqual([["tenant-a/x", 2]]);
    const day = new Date().toISOString().slice(0, 10);
    expect(
      (await getJson("/api/cost?groupBy=day")).body.rows.map((r: { key: string; turns: number }) => [r.key, r.turns]),
    ).toEqual([[day, 3]]);
    expect((await getJson("/api/cost?groupBy=day&to=2000-01-01")).body.rows).toEqual([]);
    expect((await getJson("/api/cost?groupBy=week")).status).toBe(400);
  });

  it("shows a rewind as a row after the turn it follows: where the context resumed, the calls not undone", async () => {
    const { runtime, getJson } = makeInspector();
    const first = await runtime.send({ agentId: "todo", content: "hi", messageId: "m1" });
    await runtime.send({ agentId: "todo", content: "add one", messageId: "m2", session: first.sessionId });
    await runtime.rewind(first.sessionId, { before: "m2" });
    const { body } = await getJson(`/api/sessions/${first.sessionId}`);
    expect(body.turns).toHaveLength(2);
    const rewind = body.turns[1].children.find((node: { kind: string }) => node.kind === "rewind");
    expect(rewind).toMatchObject({
      kind: "rewind",
      label: "rewind: context resumes before m2 · 1 tool call after it not undone",
      children: [],
    });
    expect(typeof rewind.startedAt).toBe("string");
  });
});

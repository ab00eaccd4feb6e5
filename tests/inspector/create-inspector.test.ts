import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "@agentry/core";
import { createInspector } from "@agentry/core/inspector";
import { makeInspector } from "./helpers.js";

describe("createInspector: identity, tenants and actions", () => {
  it("throws a typed error at creation without authorize", () => {
    const { runtime } = makeInspector();
    let error: unknown;
    try {
      createInspector({ runtime } as never);
    } catch (e) {
      error = e;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/authorize is required/);
  });

  it("answers 401 to every route when authorize resolves null, and serves the page and me to an identity", async () => {
    const { get, getJson } = makeInspector();
    for (const path of ["/api/me", "/api/sessions", "/api/pending", "/api/tasks", "/api/cost", "/api/sessions/x"]) {
      const response = await get(path, null);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: "unauthorized" });
    }
    // The page itself (no data in it) comes with the 401, so the visitor sees its "not authorized" state.
    const shut = await get("/", null);
    expect(shut.status).toBe(401);
    expect(shut.headers.get("content-type")).toMatch(/text\/html/);
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const me = await getJson("/api/me", "alice");
    expect(me.body).toMatchObject({ scopePrefix: "tenant-a/", canAct: true });
    expect(me.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("a tenant-limited operator neither sees nor acts on another tenant's session or approval (404, as unknown)", async () => {
    const { runtime, getJson, post, todo } = makeInspector();
    todo.items.push("milk");
    const a = await runtime.send({ agentId: "todo", content: "delete milk", scope: "tenant-a/eu" });
    const b = await runtime.send({ agentId: "todo", content: "delete milk", scope: "tenant-b/us" });
    const requestA = a.pendingApprovals![0]!.requestId;
    const requestB = b.pendingApprovals![0]!.requestId;
    const list = await getJson("/api/sessions", "alice");
    expect(list.body.items.map((row: { sessionId: string }) => row.sessionId)).toEqual([a.sessionId]);
    expect((await getJson(`/api/sessions/${b.sessionId}`, "alice")).status).toBe(404);
    expect((await getJson(`/api/sessions/${b.sessionId}/live`, "alice")).status).toBe(404);
    expect((await getJson(`/api/sessions/${b.sessionId}/turns/${b.runId}/export`, "alice")).status).toBe(404);
    const pending = await getJson("/api/pending", "alice");
    expect(pending.body.approvals.map((p: { requestId: string }) => p.requestId)).toEqual([requestA]);
    const refused = await post(`/api/approvals/${requestB}`, { approved: true }, "alice");
    const unknown = await post(`/api/approvals/no-such-request`, { approved: true }, "alice");
    expect([refused.status, unknown.status]).toEqual([404, 404]);
    expect(refused.body).toEqual(unknown.body);
    expect(todo.items).toEqual(["milk"]);
    expect((await runtime.pendingApprovals()).length).toBe(2);
  });

  it("approve once → 200; again (a second click or another operator) → 409 already decided", async () => {
    const { runtime, post, todo } = makeInspector();
    todo.items.push("milk");
    const turn = await runtime.send({ agentId: "todo", content: "delete milk", scope: "tenant-a/eu" });
    const requestId = turn.pendingApprovals![0]!.requestId;
    const first = await post(`/api/approvals/${requestId}`, { approved: true }, "alice");
    expect(first).toEqual({ status: 200, body: { ok: true, status: "complete" } });
    expect(todo.items).toEqual([]);
    expect(await post(`/api/approvals/${requestId}`, { approved: false, reason: "no" }, "alice")).toEqual({
      status: 409,
      body: { error: "already decided" },
    });
    expect((await post(`/api/approvals/${requestId}`, { approved: true }, "admin")).status).toBe(409);
  });

  it("answers a question once; a second answer is 409", async () => {
    const { runtime, post } = makeInspector();
    const turn = await runtime.send({ agentId: "todo", content: "ask me", scope: "tenant-a/eu" });
    const questionId = turn.pendingApprovals![0]!.requestId;
    expect((await post(`/api/questions/${questionId}`, { value: "a" }, "alice")).status).toBe(200);
    expect((await post(`/api/questions/${questionId}`, { value: "a" }, "alice")).status).toBe(409);
  });

  it("refuses POSTs with 403: canAct false, missing or foreign CSRF token, cross-origin, cross-site, not JSON; nothing decided", async () => {
    const { runtime, post, csrfOf } = makeInspector();
    const turn = await runtime.send({ agentId: "todo", content: "delete milk", scope: "tenant-a/eu" });
    const path = `/api/approvals/${turn.pendingApprovals![0]!.requestId}`;
    const attempts = [
      await post(path, { approved: true }, "viewer"),
      await post(path, { approved: true }, "alice", { "x-agentry-csrf": null }),
      await post(path, { approved: true }, "alice", { "x-agentry-csrf": await csrfOf("bob") }),
      await post(path, { approved: true }, "alice", { origin: "https://evil.example" }),
      await post(path, { approved: true }, "alice", { "sec-fetch-site": "cross-site", origin: null }),
      await post(path, { approved: true }, "alice", { "content-type": "text/plain" }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect((await runtime.pendingApprovals()).length).toBe(1);
  });

  it("applies redact to tool arguments and results in node details, live records and pending approvals", async () => {
    const redact = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/secret-item|milk/g, "***"));
    const { runtime, getJson, get } = makeInspector(undefined, { redact });
    const added = await runtime.send({ agentId: "todo", content: "add it" });
    const detail = await getJson(`/api/sessions/${added.sessionId}`);
    const modelCall = detail.body.turns[0].children[0];
    const toolNode = modelCall.children[0];
    expect(toolNode).toMatchObject({ kind: "tool_call", label: "todo_add", status: "ok" });
    const node = await getJson(`/api/sessions/${added.sessionId}/nodes/${encodeURIComponent(toolNode.id)}`);
    expect(node.body).toMatchObject({
      kind: "tool_call",
      name: "todo_add",
      args: { item: "***" },
      result: "added ***",
      decision: "allowed",
    });
    const controller = new AbortController();
    const live = await get(`/api/sessions/${added.sessionId}/live?afterSeq=0`, "admin", {});
    const text = await readUntil(live, /todo_add[\s\S]*added/, controller);
    expect(text).not.toContain("secret-item");
    await runtime.send({ agentId: "todo", content: "delete milk" });
    const pending = await getJson("/api/pending");
    expect(pending.body.approvals[0].request.args).toEqual({ item: "***" });
  });
});

/** Reads an SSE response until `pattern` matches the text so far; then cancels it. */
export async function readUntil(response: Response, pattern: RegExp, controller?: AbortController): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!pattern.test(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  controller?.abort();
  return text;
}

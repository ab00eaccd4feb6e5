import { describe, expect, it, vi } from "vitest";
import { ApprovalSupersededError, PendingDecisionError } from "@agentry/core";
import { requireDatabase } from "./database.js";
import { useDispatchLayouts } from "./fixtures/dispatch-layout.js";

describe("the dispatcher's send: context and ifPending across processes", { timeout: 120_000 }, () => {
  if (!requireDatabase()) return;
  const layout = useDispatchLayouts();

  it('stores a message behind a decision and answers "queued" at once (a worker runs it after the decision), rejects with "reject", and keeps the context through the approval', async () => {
    const { schema, start } = layout();
    await start(true);
    const front = await start(false);
    const suspended = await front.dispatcher.send({
      agentId: "main",
      content: "approve a",
      context: { tenant: "acme" },
    });
    expect(suspended.status).toBe("suspended");
    const requestId = suspended.pendingApprovals![0]!.requestId;
    const rejected = await front.dispatcher
      .send({ agentId: "main", content: "hello", session: suspended.sessionId, ifPending: "reject" })
      .catch((e: unknown) => e);
    expect(PendingDecisionError.isInstance(rejected)).toBe(true);
    expect(rejected).toMatchObject({ requestIds: [requestId] });
    const queued = await front.dispatcher.send({
      agentId: "main",
      content: "still there",
      session: suspended.sessionId,
    });
    expect(queued).toMatchObject({ status: "queued", queuedMessageId: `queued:${queued.runId}` });
    const streamed: string[] = [];
    for await (const event of front.dispatcher.stream({
      agentId: "main",
      content: "and now",
      session: suspended.sessionId,
    }))
      streamed.push(event.type);
    expect(streamed).toEqual(["message_queued"]);
    expect(await front.dispatcher.resolveApproval(requestId, { approved: true })).toMatchObject({
      status: "complete",
      text: "paid a",
    });
    // The worker that ran the decision runs the stored messages, in order, once each.
    await vi.waitFor(
      async () => {
        const texts = (await front.store.load(suspended.sessionId)).flatMap((r) =>
          r.kind === "message" && r.frame === null && r.message.role === "assistant"
            ? r.message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
            : [],
        );
        expect(texts.slice(-2)).toEqual(["echo still there", "echo and now"]);
      },
      { timeout: 30_000, interval: 50 },
    );
    const { rows } = await front.store.pool.query<{ key: string }>(`SELECT key FROM "${schema}".effects`);
    expect(rows.map((r) => r.key)).toEqual(["pay-a@acme"]);
  });

  it('"supersede" denies the pending approval; the approver then gets ApprovalSupersededError', async () => {
    const { start } = layout();
    await start(true);
    const front = await start(false);
    const suspended = await front.dispatcher.send({ agentId: "main", content: "approve b" });
    const requestId = suspended.pendingApprovals![0]!.requestId;
    const next = await front.dispatcher.send({
      agentId: "main",
      content: "forget it",
      session: suspended.sessionId,
      ifPending: "supersede",
    });
    expect(next).toMatchObject({ status: "complete", text: "echo forget it" });
    const late = await front.dispatcher.resolveApproval(requestId, { approved: true }).catch((e: unknown) => e);
    expect(ApprovalSupersededError.isInstance(late)).toBe(true);
  });
});

describe(
  "an approval asked by a delegated agent, decided through the dispatcher from another process",
  { timeout: 120_000 },
  () => {
    if (!requireDatabase()) return;
    const layout = useDispatchLayouts();

    it("main -> helper: the helper's payment approval suspends main, is listed for main's session, and resolving it answers main; the payment runs once", async () => {
      const { schema, start } = layout();
      const worker = await start(true);
      const front = await start(false);
      const other = await start(true);
      const suspended = await front.dispatcher.send({
        agentId: "main",
        content: "delegate pay-x",
        context: { tenant: "acme" },
      });
      expect(suspended.status).toBe("suspended");
      const [request] = suspended.pendingApprovals!;
      expect(request).toMatchObject({ name: "pay", origin: { agentId: "helper" } });
      const listed = await worker.runtime!.pendingApprovals({ sessionId: suspended.sessionId });
      expect(listed.map((p) => [p.requestId, p.agentId, p.chain?.map((c) => c.agentId)])).toEqual([
        [request!.requestId, "helper", ["main"]],
      ]);
      // Decided from another process: the helper resumes, its answer reaches main, main resumes.
      const resumed = await other.dispatcher.resolveApproval(request!.requestId, { approved: true });
      expect(resumed).toMatchObject({ status: "complete", sessionId: suspended.sessionId, text: "delegated pay-x" });
      const { rows } = await front.store.pool.query<{ key: string }>(`SELECT key FROM "${schema}".effects`);
      expect(rows.map((r) => r.key)).toEqual(["pay-x@acme"]);
      expect(await worker.runtime!.pendingApprovals()).toEqual([]);
      expect([...worker.problems, ...other.problems]).toEqual([]);
    });
  },
);

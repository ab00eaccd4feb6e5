import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultPolicy, defineTool, type ApprovalRequest, type Message } from "@agentry/core";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { echo, ofType, run, unmatchedStarts, user } from "./helpers.js";

function deleter() {
  const deleted: string[] = [];
  const tool = defineTool({
    name: "delete_file",
    description: "Delete a file",
    input: z.object({ path: z.string() }),
    permissionClass: "workspace_write",
    requiresApproval: true,
    execute: ({ path }) => (deleted.push(path), `deleted ${path}`),
  });
  return { tool, deleted };
}

describe("approvals", () => {
  it("runs an approved call", async () => {
    const { tool, deleted } = deleter();
    const requests: ApprovalRequest[] = [];
    const { events, result } = await run({
      script: [{ toolCalls: [{ id: "d1", name: "delete_file", args: { path: "a.txt" } }] }, { text: "done" }],
      tools: [tool],
      approve: async (request) => (requests.push(request), { approved: true }),
    });
    expect(deleted).toEqual(["a.txt"]);
    expect(requests[0]).toMatchObject({
      toolCallId: "d1",
      name: "delete_file",
      args: { path: "a.txt" },
      depth: 0,
      parentId: null,
    });
    expect(requests[0]!.reason).toMatch(/requires approval/);
    const types = events.map((e) => e.type).filter((t) => t.startsWith("approval") || t === "tool_call_update");
    expect(types).toEqual(["tool_call_update", "approval_request", "approval_resolved", "tool_call_update"]);
    expect(ofType(events, "approval_resolved")[0]).toMatchObject({ requestId: requests[0]!.requestId, approved: true });
    expect(result.status).toBe("complete");
  });

  it("denies with a reason the model sees", async () => {
    const { tool, deleted } = deleter();
    const { result, events } = await run({
      script: [{ toolCalls: [{ name: "delete_file", args: { path: "a.txt" } }] }, { text: "ok" }],
      tools: [tool],
      approve: async () => ({ approved: false, reason: "not today" }),
    });
    expect(deleted).toEqual([]);
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({ content: [{ isError: true }] });
    expect(JSON.stringify(toolMessage)).toMatch(/not approved \(not today\)/);
    expect(ofType(events, "approval_resolved")[0]).toMatchObject({ approved: false, reason: "not today" });
    expect(unmatchedStarts(events)).toEqual([]);
  });

  it("asks for tools and classes the policy names, and for requiresApproval functions that say yes", async () => {
    const asked: string[] = [];
    const maybe = defineTool({
      name: "maybe",
      description: "m",
      input: z.object({ big: z.boolean() }),
      requiresApproval: ({ big }) => big,
      execute: () => "ok",
    });
    const net = defineTool({
      name: "fetch_url",
      description: "f",
      input: z.object({}),
      permissionClass: "network",
      execute: () => "page",
    });
    await run({
      script: [
        {
          toolCalls: [
            { name: "maybe", args: { big: false } },
            { name: "maybe", args: { big: true } },
            { name: "fetch_url", args: {} },
            { name: "echo", args: { text: "x" } },
          ],
        },
        { text: "ok" },
      ],
      tools: [maybe, net, echo],
      policy: { ...defaultPolicy("thread"), approval: { classes: ["network"], tools: ["echo"] } },
      approve: async (r) => (asked.push(`${r.name}:${JSON.stringify(r.args)}`), { approved: true }),
    });
    expect(asked).toEqual(['maybe:{"big":true}', "fetch_url:{}", 'echo:{"text":"x"}']);
  });

  it("treats a throwing approval handler as a denial", async () => {
    const { tool, deleted } = deleter();
    const { result } = await run({
      script: [{ toolCalls: [{ name: "delete_file", args: { path: "a" } }] }, { text: "ok" }],
      tools: [tool],
      approve: async () => {
        throw new Error("ui offline");
      },
    });
    expect(deleted).toEqual([]);
    expect(JSON.stringify(result.messages)).toMatch(/approval handler failed: ui offline/);
  });

  it("suspends without a handler, then resumes with a decision; nothing runs twice", async () => {
    const { tool, deleted } = deleter();
    const echoed: string[] = [];
    const countingEcho = { ...echo, execute: (a: { text: string }) => (echoed.push(a.text), a.text) };
    const provider = createFakeProvider([
      {
        toolCalls: [
          { id: "e1", name: "echo", args: { text: "first" } },
          { id: "d1", name: "delete_file", args: { path: "x" } },
        ],
      },
      { text: "all done" },
    ]);
    const history: Message[] = [user("clean up")];
    const first = await run({ provider, history, tools: [tool, countingEcho] });
    expect(first.result.status).toBe("suspended");
    expect(first.result.pendingApprovals?.map((p) => p.toolCallId)).toEqual(["d1"]);
    expect(deleted).toEqual([]);
    expect(echoed).toEqual([]); // nothing in a suspended batch runs
    const firstUpdates = ofType(first.events, "tool_call_update");
    expect(firstUpdates.map((u) => `${u.toolCallId}:${u.status}`)).toEqual(["d1:start"]);
    expect(ofType(first.events, "approval_request")).toHaveLength(1);
    expect(first.events.at(-1)).toMatchObject({ type: "done", result: { status: "suspended" } });

    const second = await run({
      provider,
      history: [...history, ...first.result.messages],
      tools: [tool, countingEcho],
      resume: { ...first.result.resume!, decisions: { d1: { approved: true } } },
    });
    expect(second.result.status).toBe("complete");
    expect(deleted).toEqual(["x"]);
    expect(echoed).toEqual(["first"]);
    const updates = ofType(second.events, "tool_call_update").map((u) => `${u.toolCallId}:${u.status}`);
    // The two calls run concurrently; d1 already had its start in the suspended run.
    expect([...updates].sort()).toEqual(["d1:end", "e1:end", "e1:start"]);
    expect(updates.indexOf("e1:start")).toBeLessThan(updates.indexOf("e1:end"));
    expect(ofType(second.events, "approval_resolved")).toHaveLength(1);
    expect(unmatchedStarts([...first.events, ...second.events])).toEqual([]);
    expect(historyProblems([...history, ...first.result.messages, ...second.result.messages])).toEqual([]);
    expect(provider.remaining()).toBe(0);
  });

  it("suspends from inside a sub-task and resumes at that depth, keeping finished siblings", async () => {
    const { tool, deleted } = deleter();
    const siblingRuns: string[] = [];
    const note = defineTool({
      name: "note",
      description: "n",
      input: z.object({ text: z.string() }),
      execute: ({ text }) => (siblingRuns.push(text), "noted"),
    });
    const script = (request: { system: string; messages: Message[] }) => {
      const first = request.messages[0];
      const instructions = first?.role === "user" && typeof first.content === "string" ? first.content : "";
      if (request.system.startsWith("You are a sub-agent")) {
        const last = request.messages.at(-1)!;
        if (last.role === "user") {
          return instructions === "delete"
            ? { toolCalls: [{ id: "del", name: "delete_file", args: { path: "old.log" } }] }
            : { toolCalls: [{ id: "n1", name: "note", args: { text: "sibling" } }] };
        }
        return { text: `${instructions} finished` };
      }
      return request.messages.at(-1)!.role === "user"
        ? {
            toolCalls: [
              { id: "s1", name: "run_subtask", args: { title: "Delete", instructions: "delete" } },
              { id: "s2", name: "run_subtask", args: { title: "Note", instructions: "note" } },
            ],
          }
        : { text: "root done" };
    };
    const provider = createFakeProvider(script);
    const history: Message[] = [user("go")];
    const first = await run({ provider, history, tools: [tool, note] });
    expect(first.result.status).toBe("suspended");
    expect(first.result.pendingApprovals).toEqual([
      expect.objectContaining({ toolCallId: "del", depth: 1, parentId: "s1" }),
    ]);
    expect(siblingRuns).toEqual(["sibling"]);
    expect(first.result.resume?.frames.s1?.[0]).toMatchObject({ role: "user", content: "delete" });
    expect(first.result.resume?.results?.s2).toMatchObject({ result: "note finished" });
    expect(first.result.messages.map((m) => m.role)).toEqual(["assistant"]);
    const callsBefore = provider.calls.length;

    const second = await run({
      provider,
      history: [...history, ...first.result.messages],
      tools: [tool, note],
      resume: { ...first.result.resume!, decisions: { del: { approved: true } } },
    });
    expect(second.result.status).toBe("complete");
    expect(second.result.text).toBe("root done");
    expect(deleted).toEqual(["old.log"]);
    expect(siblingRuns).toEqual(["sibling"]); // the finished sibling did not run again
    // Resumed: the child's model is asked once (after the delete), then the root once.
    expect(provider.calls.length - callsBefore).toBe(2);
    const toolMessage = second.result.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({
      content: [
        { toolCallId: "s1", result: "delete finished" },
        { toolCallId: "s2", result: "note finished" },
      ],
    });
    expect(unmatchedStarts([...first.events, ...second.events])).toEqual([]);
    expect(historyProblems([...history, ...first.result.messages, ...second.result.messages])).toEqual([]);
  });
});

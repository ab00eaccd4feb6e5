import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, ProviderError } from "@agentry/core";
import { instrumentRuntime } from "@agentry/core/otel";
import { makeRuntime } from "../runtime/helpers.js";
import { lastText, multiRuntime } from "../runtime/multi-agent-helpers.js";
import { idOf, memoryTracer, parentOf } from "./helpers.js";

const SECRET = "my card number is 4111";

describe("instrumentRuntime", () => {
  it("traces a turn: invoke_agent, chat per model call, execute_tool per call, sub-task spans under run_subtask", async () => {
    const { tracer, spans, named, one } = memoryTracer();
    const { runtime } = makeRuntime(
      (request) => {
        const last = request.messages.at(-1)!;
        if (typeof last.content === "string" && last.content.startsWith("Find")) {
          return { text: "found it", usage: { inputTokens: 7, outputTokens: 2 } };
        }
        if (last.role === "user") {
          return {
            toolCalls: [
              { id: "call_add", name: "todo_add", args: { item: SECRET } },
              { id: "call_sub", name: "run_subtask", args: { title: "Lookup", instructions: "Find the thing." } },
            ],
            usage: { inputTokens: 10, outputTokens: 5 },
          };
        }
        return { text: "All done.", usage: { inputTokens: 20, outputTokens: 3 } };
      },
      {
        registry: createAgentRegistry([
          {
            agentId: "todo",
            displayName: "Todo Manager",
            chat: { model: "fake-model", temperature: 0.5, maxOutputTokens: 100 },
          },
        ]),
      },
    );
    const tracing = instrumentRuntime(runtime, { tracer });
    const result = await runtime.send({ agentId: "todo", content: SECRET });
    expect(result.status).toBe("complete");

    const turn = one("invoke_agent Todo Manager");
    expect(turn.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(turn)).toBeUndefined();
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": "todo",
      "gen_ai.agent.name": "Todo Manager",
      "gen_ai.conversation.id": result.sessionId,
      "gen_ai.request.model": "fake-model",
      "gen_ai.request.temperature": 0.5,
      "gen_ai.request.max_tokens": 100,
      "gen_ai.usage.input_tokens": 37,
      "gen_ai.usage.output_tokens": 10,
      "agentry.run.id": result.runId,
      "agentry.turn.status": "complete",
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);

    const chats = named("chat");
    expect(chats.map((s) => s.name)).toEqual(["chat fake-model", "chat fake-model", "chat fake-model"]);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.attributes["gen_ai.operation.name"]).toBe("chat");
      expect(chat.attributes["gen_ai.conversation.id"]).toBe(result.sessionId);
    }
    const tools = named("execute_tool");
    const add = one("execute_tool todo_add");
    const sub = one("execute_tool run_subtask");
    expect(tools).toHaveLength(2);
    expect(add.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "todo_add",
      "gen_ai.tool.call.id": "call_add",
      "gen_ai.tool.type": "function",
    });
    expect(parentOf(add)).toBe(idOf(turn));
    expect(parentOf(sub)).toBe(idOf(turn));

    // Root calls hang under the turn; the sub-task's call under its run_subtask span.
    const subChat = chats.find((s) => s.attributes["agentry.depth"] === 1)!;
    expect(parentOf(subChat)).toBe(idOf(sub));
    expect(subChat.attributes).toMatchObject({
      "agentry.parent_tool_call.id": "call_sub",
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 2,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    const roots = chats.filter((s) => s.attributes["agentry.depth"] === 0);
    expect(roots.map((s) => parentOf(s))).toEqual([idOf(turn), idOf(turn)]);
    expect(roots.map((s) => s.attributes["gen_ai.response.finish_reasons"])).toEqual(
      expect.arrayContaining([["tool_calls"], ["stop"]]),
    );
    expect(roots.map((s) => s.attributes["gen_ai.usage.input_tokens"]).sort()).toEqual([10, 20]);

    // Every span belongs to one trace, and none carries content by default.
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(JSON.stringify(spans().map((s) => [s.attributes, s.events, s.status]))).not.toContain("4111");
    tracing.stop();
  });

  it("records content only when asked: tool arguments and results, the model's output", async () => {
    const { tracer, one, named } = memoryTracer();
    const { runtime } = makeRuntime([
      { toolCalls: [{ id: "c1", name: "todo_add", args: { item: SECRET } }] },
      { text: "Saved your card." },
    ]);
    instrumentRuntime(runtime, { tracer, recordContent: true });
    await runtime.send({ agentId: "todo", content: "save it" });
    const add = one("execute_tool todo_add");
    expect(JSON.parse(String(add.attributes["gen_ai.tool.call.arguments"]))).toEqual({ item: SECRET });
    expect(add.attributes["gen_ai.tool.call.result"]).toBe(`added ${SECRET}`);
    const outputs = named("chat").map((s) => String(s.attributes["gen_ai.output.messages"]));
    expect(outputs.some((o) => o.includes("Saved your card."))).toBe(true);
  });

  it("sets ERROR statuses for a provider error and for a failed tool", async () => {
    const { tracer, one, named } = memoryTracer();
    const { runtime } = makeRuntime([
      { toolCalls: [{ id: "c1", name: "todo_add", args: { wrong: true } }] },
      { error: new ProviderError("upstream exploded", { provider: "fake", status: 500, retryable: false }) },
    ]);
    instrumentRuntime(runtime, { tracer });
    const result = await runtime.send({ agentId: "todo", content: "go" });
    expect(result.status).toBe("error");
    const tool = one("execute_tool todo_add");
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: "todo_add failed" });
    // A refused call's error type is why it was refused.
    expect(tool.attributes["error.type"]).toBe("invalid_arguments");
    const failed = named("chat").find((s) => s.status.code === SpanStatusCode.ERROR)!;
    expect(failed.status.message).toContain("upstream exploded");
    expect(failed.attributes["error.type"]).toBe("ProviderError");
    expect(failed.attributes).not.toHaveProperty(["gen_ai.response.finish_reasons"]);
    const turn = named("invoke_agent")[0]!;
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    expect(turn.attributes["error.type"]).toBe("ProviderError");
  });

  it("marks a budget stop on the turn span", async () => {
    const { tracer, named } = memoryTracer();
    const { runtime } = makeRuntime(() => ({ toolCalls: [{ name: "todo_add", args: { item: "x" } }] }), {
      budget: { maxTotalLlmCalls: 2 },
    });
    instrumentRuntime(runtime, { tracer });
    const result = await runtime.send({ agentId: "todo", content: "loop" });
    expect(result.status).toBe("budget_exceeded");
    const turn = named("invoke_agent")[0]!;
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    expect(turn.attributes).toMatchObject({
      "error.type": "budget_exceeded.llm_calls",
      "agentry.budget.reason": "llm_calls",
      "agentry.budget.limit": 2,
    });
    expect(turn.events.map((e) => e.name)).toContain("agentry.budget_exceeded");
    expect(named("chat")).toHaveLength(2);
  });

  it("links an agents_message call to the turn it started in the other session, both ways", async () => {
    const { tracer, named, one } = memoryTracer();
    const { runtime } = multiRuntime({
      general: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "todo says hi" }
          : { toolCalls: [{ name: "agents_message", args: { agentId: "todo", content: "hello" } }] },
      todo: (request) => ({ text: `hi from todo (${lastText(request)})` }),
    });
    instrumentRuntime(runtime, { tracer });
    const result = await runtime.send({ agentId: "general", content: "ask todo" });
    expect(result.status).toBe("complete");
    const call = one("execute_tool agents_message");
    const callee = one("invoke_agent Todo");
    const caller = one("invoke_agent General");
    expect(callee.attributes["gen_ai.conversation.id"]).not.toBe(caller.attributes["gen_ai.conversation.id"]);
    expect(call.links.map((l) => l.context.spanId)).toEqual([idOf(callee)]);
    expect(call.attributes["agentry.delegation.run_id"]).toBe(callee.attributes["agentry.run.id"]);
    expect(named("chat").filter((s) => parentOf(s) === idOf(callee))).toHaveLength(1);
  });

  it("links an async delegation from the delegated turn back to the call", async () => {
    const { tracer, one } = memoryTracer();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { runtime } = multiRuntime({
      general: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "started" }
          : { toolCalls: [{ name: "agents_message", args: { agentId: "todo", content: "later", mode: "async" } }] },
      todo: async () => {
        await gate;
        return { text: "done later" };
      },
    });
    instrumentRuntime(runtime, { tracer });
    await runtime.send({ agentId: "general", content: "fire and forget" });
    release();
    await runtime.close();
    const call = one("execute_tool agents_message");
    const callee = one("invoke_agent Todo");
    // Whichever came first (the call's end or the delegated turn's first event), the two spans are linked.
    const callToCallee = call.links.some((link) => link.context.spanId === idOf(callee));
    const calleeToCall = callee.links.some((link) => link.context.spanId === idOf(call));
    expect(callToCallee || calleeToCall).toBe(true);
  });

  it("ends a suspended call's span with the turn, and traces its end in the run that resumes it", async () => {
    const { tracer, named } = memoryTracer();
    const { runtime } = makeRuntime([
      { toolCalls: [{ id: "del1", name: "todo_delete", args: { item: "milk" } }] },
      { text: "Deleted." },
    ]);
    instrumentRuntime(runtime, { tracer });
    const first = await runtime.send({ agentId: "todo", content: "delete milk" });
    expect(first.status).toBe("suspended");
    const suspended = named("execute_tool todo_delete");
    expect(suspended).toHaveLength(1);
    expect(suspended[0]!.attributes["agentry.tool.suspended"]).toBe(true);
    expect(suspended[0]!.events.map((e) => e.name)).toContain("agentry.approval_request");
    const [pending] = await runtime.pendingApprovals();
    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    const turns = named("invoke_agent");
    expect(turns).toHaveLength(2);
    const ends = named("execute_tool todo_delete");
    expect(ends).toHaveLength(2);
    expect(parentOf(ends[1]!)).toBe(idOf(turns[1]!));
  });

  it("stops: no spans after stop(), open spans ended, the listener removed", async () => {
    const { tracer, spans } = memoryTracer();
    const { runtime } = makeRuntime([{ text: "one" }, { text: "two" }]);
    const tracing = instrumentRuntime(runtime, { tracer });
    await runtime.send({ agentId: "todo", content: "a" });
    const count = spans().length;
    expect(count).toBe(2);
    const listeners = runtime.events.listenerCount("event");
    tracing.stop();
    tracing.stop();
    expect(runtime.events.listenerCount("event")).toBe(listeners - 1);
    await runtime.send({ agentId: "todo", content: "b" });
    expect(spans()).toHaveLength(count);
  });
});

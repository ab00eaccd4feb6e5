import { SpanKind } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type LoopEvent } from "@agentry/core";
import { tracedLoop } from "@agentry/core/otel";
import { createFakeProvider } from "@agentry/core/testing";
import { idOf, memoryTracer, parentOf } from "./helpers.js";

const echo = defineTool({
  name: "echo",
  description: "Echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

describe("tracedLoop", () => {
  it("passes every event and the result through, and traces the run", async () => {
    const { tracer, one, named } = memoryTracer();
    const script = () =>
      createFakeProvider([
        {
          toolCalls: [{ id: "s1", name: "run_subtask", args: { title: "Inner", instructions: "Echo hi." } }],
          usage: { inputTokens: 5, outputTokens: 1 },
        },
        { toolCalls: [{ id: "e1", name: "echo", args: { text: "hi" } }] },
        { text: "echoed" },
        { text: "outer done", usage: { inputTokens: 9, outputTokens: 2 } },
      ]);
    const options = {
      provider: script(),
      model: "fake-model",
      systemPrompt: "Be brief.",
      history: [{ role: "user" as const, content: "go" }],
      tools: [echo],
    };
    const plain: LoopEvent[] = [];
    for await (const event of runUnifiedAgentLoop(options)) plain.push(event);

    const traced = tracedLoop(runUnifiedAgentLoop({ ...options, provider: script() }), {
      tracer,
      model: "fake-model",
      agentId: "helper",
      conversationId: "conv-1",
    });
    const events: LoopEvent[] = [];
    let next = await traced.next();
    while (!next.done) {
      events.push(next.value);
      next = await traced.next();
    }
    const strip = (list: LoopEvent[]) =>
      JSON.parse(
        JSON.stringify(list, (key, value: unknown) =>
          key === "durationMs" || key === "duration_ms"
            ? 0
            : key === "streamId" && typeof value === "string"
              ? value.replace(/^stream_[0-9a-f]{8}_/, "stream_<turn>_")
              : value,
        ),
      ) as unknown;
    expect(strip(events)).toEqual(strip(plain));
    expect(next.value.status).toBe("complete");
    expect(next.value.text).toBe("outer done");

    const turn = one("invoke_agent helper");
    expect(turn.attributes).toMatchObject({
      "gen_ai.conversation.id": "conv-1",
      "gen_ai.agent.id": "helper",
      "gen_ai.request.model": "fake-model",
      "agentry.turn.status": "complete",
    });
    const sub = one("execute_tool run_subtask");
    const inner = one("execute_tool echo");
    expect(parentOf(sub)).toBe(idOf(turn));
    expect(parentOf(inner)).toBe(idOf(sub));
    const chats = named("chat");
    expect(chats).toHaveLength(4);
    expect(chats.every((chat) => chat.kind === SpanKind.CLIENT && chat.name === "chat fake-model")).toBe(true);
    expect(chats.filter((chat) => parentOf(chat) === idOf(sub))).toHaveLength(2);
  });

  it("names each chat span after its own call's model and provider, with the loop's request parameters", async () => {
    const { tracer, named, one } = memoryTracer();
    const modelOptions = { temperature: 0, maxOutputTokens: 512 };
    const loop = runUnifiedAgentLoop({
      provider: createFakeProvider(
        [{ toolCalls: [{ id: "e1", name: "echo", args: { text: "hi" } }] }, { text: "ok" }],
        {
          id: "openai.responses",
        },
      ),
      model: "gpt-test",
      systemPrompt: "",
      history: [{ role: "user", content: "go" }],
      tools: [echo],
      modelOptions,
      hooks: { prepareStep: (step) => (step.iteration === 2 ? { model: "gpt-test-mini" } : undefined) },
    });
    for await (const event of tracedLoop(loop, { tracer, modelOptions })) void event;
    expect(named("chat").map((chat) => chat.name)).toEqual(["chat gpt-test", "chat gpt-test-mini"]);
    for (const chat of named("chat"))
      expect(chat.attributes).toMatchObject({
        "gen_ai.provider.name": "openai",
        "gen_ai.request.temperature": 0,
        "gen_ai.request.max_tokens": 512,
      });
    expect(one("invoke_agent").attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
    });
  });

  it("leaving early stops the wrapped loop (its tools are aborted) and ends the spans", async () => {
    const { tracer, spans } = memoryTracer();
    let aborted = false;
    const wait = defineTool({
      name: "wait",
      description: "Waits until aborted",
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve("stopped");
          });
        }),
    });
    const provider = createFakeProvider([{ toolCalls: [{ id: "w", name: "wait", args: {} }] }, { text: "never" }]);
    for await (const event of tracedLoop(
      runUnifiedAgentLoop({
        provider,
        model: "m",
        systemPrompt: "",
        history: [{ role: "user", content: "go" }],
        tools: [wait],
      }),
      { tracer },
    )) {
      if (event.type === "tool_call_update" && event.status === "start") break;
    }
    expect(aborted).toBe(true);
    expect(
      spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["chat m", "execute_tool wait", "invoke_agent"].sort());
  });
});

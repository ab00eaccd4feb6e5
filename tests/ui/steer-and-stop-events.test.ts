import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type RuntimeEvent } from "@agentry/core";
import { formatEvent } from "@agentry/core/testing";
import { toAgUiEvents, toTaskEvents, toUIMessageStream, type AgUiEvent } from "@agentry/core/ui";
import { makeRuntime, textOf } from "../runtime/helpers.js";

/** One turn that reads a steered message, then one stopped by an interrupting message: their events. */
async function steeredAndStopped(): Promise<{ steered: RuntimeEvent[]; stopped: RuntimeEvent[] }> {
  let release!: () => void;
  let started!: () => void;
  let running = new Promise<void>((resolve) => (started = resolve));
  let opened = new Promise<void>((resolve) => (release = resolve));
  const wait = defineTool({
    name: "wait",
    description: "Waits",
    input: z.object({}),
    execute: async (_input, ctx) => {
      started();
      await new Promise<void>((resolve) => {
        void opened.then(resolve);
        ctx.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      return "waited";
    },
  });
  const { runtime, store, events } = makeRuntime(
    (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "user" && textOf(last).startsWith("go")) return { toolCalls: [{ name: "wait", args: {} }] };
      return { text: `re: ${textOf(request.messages.filter((m) => m.role === "user").at(-1))}` };
    },
    { tools: [wait] },
  );
  const first = runtime.send({ agentId: "general", content: "go" });
  await running;
  const [session] = await store.listSessions();
  const sessionId = session!.sessionId;
  const steering = runtime.send({ agentId: "general", session: sessionId, content: "and eggs", ifBusy: "steer" });
  await expect.poll(async () => (await store.load(sessionId)).some((r) => r.kind === "steer")).toBe(true);
  release();
  const steeredTurn = await first;
  await steering;
  running = new Promise<void>((resolve) => (started = resolve));
  opened = new Promise<void>(() => undefined);
  const second = runtime.send({ agentId: "general", session: sessionId, content: "go again" });
  await running;
  await runtime.send({ agentId: "general", session: sessionId, content: "stop that", ifBusy: "interrupt" });
  const stoppedTurn = await second;
  await runtime.close();
  return {
    steered: events.filter((e) => e.runId === steeredTurn.runId),
    stopped: events.filter((e) => e.runId === stoppedTurn.runId),
  };
}

async function collect<T>(iterable: AsyncIterable<T> | ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable as AsyncIterable<T>) out.push(item);
  return out;
}

async function* iterate(events: RuntimeEvent[]) {
  yield* events;
}

describe("message_steered and turn_stopped in every translator", () => {
  it("the UI message stream, AG-UI, the task catalogue and formatEvent carry them", async () => {
    const { steered, stopped } = await steeredAndStopped();
    expect(steered.map((e) => e.type)).toContain("message_steered");
    expect(stopped.map((e) => e.type)).toContain("turn_stopped");

    const ui = [
      ...(await collect(toUIMessageStream(iterate(steered)))),
      ...(await collect(toUIMessageStream(iterate(stopped)))),
    ];
    expect(ui).toContainEqual(
      expect.objectContaining({ type: "data-agentry-steered", data: expect.objectContaining({ content: "and eggs" }) }),
    );
    const stoppedAt = ui.findIndex((c) => c.type === "data-agentry-stopped");
    expect(ui[stoppedAt]).toMatchObject({ data: { reason: "interrupted" } });
    expect(ui.slice(stoppedAt).some((c) => c.type === "abort")).toBe(true);

    const agUi: AgUiEvent[] = [
      ...(await collect(toAgUiEvents(iterate(steered)))),
      ...(await collect(toAgUiEvents(iterate(stopped)))),
    ];
    expect(agUi).toContainEqual(
      expect.objectContaining({
        type: "CUSTOM",
        name: "agentry.message_steered",
        value: expect.objectContaining({ messageId: expect.any(String) }),
      }),
    );
    expect(agUi).toContainEqual(
      expect.objectContaining({
        type: "CUSTOM",
        name: "agentry.turn_stopped",
        value: expect.objectContaining({ reason: "interrupted" }),
      }),
    );

    const tasks = toTaskEvents([...steered, ...stopped]);
    expect(tasks).toContainEqual(
      expect.objectContaining({
        type: "agent.message_steered",
        payload: expect.objectContaining({ content: "and eggs" }),
      }),
    );
    expect(tasks).toContainEqual(
      expect.objectContaining({
        type: "agent.turn_stopped",
        payload: expect.objectContaining({ reason: "interrupted" }),
      }),
    );

    const lines = [...steered, ...stopped].map((e) => formatEvent(e)).filter((l) => l !== undefined);
    expect(lines).toContain("↪ steered: and eggs");
    expect(lines).toContain("■ stopped: interrupted");
  });
});

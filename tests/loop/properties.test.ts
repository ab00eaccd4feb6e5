import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type LoopEvent, type LoopResult, type Message } from "@agentry/core";
import { createFakeProvider, historyProblems, type FakeTurn } from "@agentry/core/testing";
import { echo, unmatchedStarts, user } from "./helpers.js";

/**
 * Waits `ticks` turns of the event loop (setImmediate), not a time: the order in which parallel
 * waits end is then fixed by the script, so a failing seed replays the same run.
 */
const wait = defineTool({
  name: "wait",
  description: "w",
  input: z.object({ ticks: z.number() }),
  execute: (args, ctx) =>
    new Promise((resolve, reject) => {
      let left = args.ticks;
      let pending: ReturnType<typeof setImmediate> | undefined;
      const step = () => {
        if (left-- <= 0) return resolve("waited");
        pending = setImmediate(step);
      };
      ctx.signal.addEventListener("abort", () => (clearImmediate(pending), reject(new Error("aborted"))));
      step();
    }),
});
const locked = defineTool({
  name: "locked",
  description: "l",
  input: z.object({}),
  exclusiveLock: "L",
  parallelSafe: false,
  execute: () => "locked ok",
});
const fails = defineTool({
  name: "fails",
  description: "f",
  input: z.object({}),
  execute: () => {
    throw new Error("nope");
  },
});

const callArb = fc.oneof(
  fc.record({ name: fc.constant("echo"), args: fc.record({ text: fc.string({ maxLength: 8 }) }) }),
  fc.record({ name: fc.constant("wait"), args: fc.record({ ticks: fc.integer({ min: 0, max: 3 }) }) }),
  fc.record({ name: fc.constant("locked"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("fails"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("ghost"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("echo"), args: fc.constant({ text: 5 }) }),
  fc.record({
    name: fc.constant("run_subtask"),
    args: fc.record({ title: fc.constant("t"), instructions: fc.constant("i") }),
  }),
  fc.record({
    name: fc.constant("run_subtask"),
    args: fc.record({
      title: fc.constant("s"),
      instructions: fc.constant("structured"),
      output_schema: fc.constant({ type: "object", required: ["n"] }),
    }),
  }),
  fc.record({
    name: fc.constant("finish_subtask"),
    args: fc.oneof(fc.constant({ result: { n: 1 } }), fc.constant({ result: {} })),
  }),
);
const turnArb: fc.Arbitrary<FakeTurn> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ text: fc.string({ maxLength: 12 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      toolCalls: fc.array(callArb, { minLength: 1, maxLength: 4 }),
      usage: fc.constant({ inputTokens: 10, outputTokens: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ text: fc.constant("x"), error: fc.constant(new Error("provider down")) }) },
);
const limitsArb = fc.record({
  maxDepth: fc.integer({ min: 0, max: 3 }),
  maxIterationsPerLevel: fc.integer({ min: 1, max: 6 }),
  maxParallelPerTurn: fc.integer({ min: 1, max: 4 }),
  maxTotalSubtasks: fc.integer({ min: 0, max: 6 }),
  maxTotalLlmCalls: fc.integer({ min: 1, max: 25 }),
  maxTotalToolCalls: fc.integer({ min: 0, max: 25 }),
  maxTotalResultBytes: fc.integer({ min: 0, max: 400 }),
});

function checkTree(events: LoopEvent[]): string[] {
  const problems: string[] = [];
  const subtaskDepth = new Map<string, number>();
  for (const e of events) {
    if (e.depth === 0 && e.parentId !== null) problems.push(`root event with parentId ${e.parentId}`);
    if (e.depth > 0) {
      const parentDepth = e.parentId === null ? undefined : subtaskDepth.get(e.parentId);
      if (parentDepth === undefined) problems.push(`${e.type} at depth ${e.depth} has unknown parent ${e.parentId}`);
      else if (parentDepth !== e.depth - 1)
        problems.push(`${e.type} at depth ${e.depth} under a parent at depth ${parentDepth}`);
    }
    if (e.type === "tool_call_update" && e.status === "start" && e.name === "run_subtask")
      subtaskDepth.set(e.toolCallId, e.depth);
  }
  return problems;
}

function checkCallOrder(messages: Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((m, i) => {
    if (m.role !== "tool") return;
    const previous = messages[i - 1];
    if (previous?.role !== "assistant") return;
    const asked = previous.content.flatMap((p) => (p.type === "tool_call" ? [p.id] : []));
    const answered = m.content.map((r) => r.toolCallId);
    if (JSON.stringify(asked) !== JSON.stringify(answered))
      problems.push(`results ${answered.join(",")} not in call order ${asked.join(",")}`);
  });
  return problems;
}

describe("loop invariants over random scripts", () => {
  it("start/end pairs, budgets, tree consistency, call order, valid histories (also after aborts)", async () => {
    await fc.assert(
      // Aborts after the consumer has seen `abortAfterEvents` events (0: before the first one), so
      // where the abort lands depends on the drawn values only and a failing seed replays exactly.
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 12 }),
        limitsArb,
        fc.option(fc.integer({ min: 0, max: 60 })),
        async (turns, limits, abortAfterEvents) => {
          const provider = createFakeProvider((_request, index) =>
            index < 40 ? turns[index % turns.length]! : { text: "enough" },
          );
          const controller = new AbortController();
          const loop = runUnifiedAgentLoop({
            provider,
            model: "test-model",
            systemPrompt: "You are a test agent.",
            history: [user("hello")],
            tools: [echo, wait, locked, fails],
            budget: limits,
            signal: controller.signal,
          });
          const events: LoopEvent[] = [];
          if (abortAfterEvents === 0) controller.abort();
          let step = await loop.next();
          while (!step.done) {
            events.push(step.value);
            if (events.length === abortAfterEvents) controller.abort();
            step = await loop.next();
          }
          const result: LoopResult = step.value;

          expect(unmatchedStarts(events)).toEqual([]);
          expect(events.at(-1)?.type).toBe("done");
          expect(events.filter((e) => e.type === "done")).toHaveLength(1);
          expect(events.filter((e) => e.type === "budget_exceeded").length).toBeLessThanOrEqual(1);

          const c = result.usage;
          expect(c.llmCalls).toBeLessThanOrEqual(limits.maxTotalLlmCalls);
          expect(provider.calls.length).toBeLessThanOrEqual(limits.maxTotalLlmCalls);
          expect(c.toolCalls).toBeLessThanOrEqual(limits.maxTotalToolCalls);
          const spawned = events.filter(
            (e) =>
              e.type === "message" &&
              e.depth > 0 &&
              e.message.role === "user" &&
              !(typeof e.message.content === "string" && e.message.content.startsWith("You must")),
          );
          expect(spawned.length).toBeLessThanOrEqual(limits.maxTotalSubtasks);
          expect(Math.max(0, ...events.map((e) => e.depth))).toBeLessThanOrEqual(limits.maxDepth);

          expect(checkTree(events)).toEqual([]);
          expect(checkCallOrder(result.messages)).toEqual([]);
          expect(historyProblems([user("hello"), ...result.messages])).toEqual([]);
          const frames = new Map<string, Message[]>();
          for (const e of events)
            if (e.type === "message" && e.parentId !== null)
              frames.set(e.parentId, [...(frames.get(e.parentId) ?? []), e.message]);
          for (const frame of frames.values()) {
            expect(historyProblems(frame)).toEqual([]);
            expect(checkCallOrder(frame)).toEqual([]);
          }
          const tree = result.executionTree.nodes;
          const starts = events.filter((e) => e.type === "tool_call_update" && e.status === "start");
          expect(tree).toHaveLength(starts.length);
          for (const node of tree) {
            expect((node.args_preview ?? "").length).toBeLessThanOrEqual(500);
            expect((node.result_preview ?? "").length).toBeLessThanOrEqual(500);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

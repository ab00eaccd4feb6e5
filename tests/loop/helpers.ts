import { z } from "zod";
import {
  defineTool,
  runUnifiedAgentLoop,
  type LoopEvent,
  type LoopOptions,
  type LoopResult,
  type Message,
  type ModelRequest,
} from "@agentry/core";
import {
  collectEvents,
  createFakeProvider,
  type FakeProvider,
  type FakeScript,
  type FakeTurn,
} from "@agentry/core/testing";

export const user = (content: string): Message => ({ role: "user", content });

export const echo = defineTool({
  name: "echo",
  description: "Echo the text back",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** Resolves the returned promises when `count()` reaches a number: waits on events, never on a clock. */
function countWaiters(count: () => number) {
  const waiting: { n: number; resolve: () => void }[] = [];
  return {
    /** Resolves once `count()` is at least `n`. */
    until: (n: number): Promise<void> => {
      if (count() >= n) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ n, resolve }));
    },
    /** Call after `count()` changed. */
    check: () => {
      for (const waiter of [...waiting]) {
        if (count() >= waiter.n) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
  };
}

/**
 * A tool that sleeps `ms` (honouring abort) and records concurrency. `whenStarted(n)` resolves
 * once `n` calls have started, so a test can act at that point instead of after a guessed delay.
 */
export function sleeper(name = "sleep", extra: { parallelSafe?: boolean; exclusiveLock?: string } = {}) {
  const stats = { running: 0, maxRunning: 0, order: [] as string[] };
  let started = 0;
  const starts = countWaiters(() => started);
  const tool = defineTool({
    name,
    description: "Sleep",
    input: z.object({ ms: z.number(), tag: z.string().optional() }),
    ...extra,
    execute: async ({ ms, tag }, ctx) => {
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      stats.order.push(`start:${tag ?? ""}`);
      started++;
      starts.check();
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("aborted by signal"));
          });
        });
      } finally {
        stats.running--;
        stats.order.push(`end:${tag ?? ""}`);
      }
      return `slept ${ms}${tag ? ` ${tag}` : ""}`;
    },
  });
  return { tool, stats, whenStarted: starts.until };
}

/**
 * A tool whose calls run until the test releases them (or their signal aborts): no timers, so what
 * a test sees does not depend on the machine's speed. Counts concurrency like {@link sleeper}.
 */
export function heldTool(name = "held", extra: { parallelSafe?: boolean; exclusiveLock?: string } = {}) {
  const stats = { running: 0, maxRunning: 0, started: 0, aborted: 0, order: [] as string[] };
  const held = new Map<string, () => void>();
  let releaseAll = false;
  const starts = countWaiters(() => stats.started);
  const idle = countWaiters(() => (stats.running === 0 ? 1 : 0));
  const tool = defineTool({
    name,
    description: "Runs until released",
    input: z.object({ tag: z.string() }),
    ...extra,
    execute: async ({ tag }, ctx) => {
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      stats.started++;
      stats.order.push(`start:${tag}`);
      starts.check();
      try {
        await new Promise<void>((resolve, reject) => {
          if (releaseAll) return resolve();
          held.set(tag, resolve);
          ctx.signal.addEventListener("abort", () => {
            stats.aborted++;
            reject(new Error("aborted by signal"));
          });
        });
      } finally {
        held.delete(tag);
        stats.running--;
        stats.order.push(`end:${tag}`);
        idle.check();
      }
      return `released ${tag}`;
    },
  });
  return {
    tool,
    stats,
    /** Resolves once `n` calls have started. */
    whenStarted: starts.until,
    /** Resolves once no call is running. */
    whenIdle: () => idle.until(1),
    /** Lets the running call with this tag finish. */
    release(tag: string) {
      const resolve = held.get(tag);
      if (!resolve) throw new Error(`no running call tagged ${tag}`);
      resolve();
    },
    /** Lets every running call finish, and every later one finish at once. */
    releaseAll() {
      releaseAll = true;
      for (const resolve of held.values()) resolve();
    },
  };
}

export type RunOptions = Partial<LoopOptions> & { script?: FakeScript };

/** Runs the loop with defaults; returns events, the result and the provider. */
export async function run(options: RunOptions) {
  // Tests that read `provider.calls` run on the default fake provider.
  const provider = (options.provider ?? createFakeProvider(options.script ?? [])) as FakeProvider;
  const { events, result } = await collectEvents(
    runUnifiedAgentLoop({
      model: "test-model",
      systemPrompt: "You are a test agent.",
      history: [user("hello")],
      tools: [],
      ...options,
      provider,
    }),
  );
  return { events, result: result as LoopResult, provider };
}

export const ofType = <T extends LoopEvent["type"]>(events: LoopEvent[], type: T) =>
  events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type);

/** Checks that every tool_call_update start has exactly one end (and no end without start). */
export function unmatchedStarts(events: LoopEvent[]): string[] {
  const open = new Map<string, number>();
  const problems: string[] = [];
  for (const e of ofType(events, "tool_call_update")) {
    const n = open.get(e.toolCallId) ?? 0;
    if (e.status === "start") {
      if (n !== 0) problems.push(`double start ${e.toolCallId}`);
      open.set(e.toolCallId, 1);
    } else {
      if (n !== 1) problems.push(`end without start ${e.toolCallId}`);
      open.set(e.toolCallId, 2);
    }
  }
  for (const [id, n] of open) if (n === 1) problems.push(`start without end ${id}`);
  return problems;
}

/** A function script: children (`caller.depth` > 0) and the root scripted separately. */
export function byLevel(root: FakeTurn[], child: (request: ModelRequest) => FakeTurn): FakeScript {
  let rootIndex = 0;
  return (request) => {
    if ((request.caller?.depth ?? 0) > 0) return child(request);
    const turn = root[rootIndex++];
    if (!turn) throw new Error(`root script exhausted at ${rootIndex - 1}`);
    return turn;
  };
}

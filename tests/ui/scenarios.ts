import { z } from "zod";
import { defineTool, ProviderError, type DeliverableEvent, type ModelRequest, type RuntimeEvent } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime, textOf } from "../runtime/helpers.js";

const echo = defineTool({
  name: "echo",
  description: "Echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});
const isChild = (request: ModelRequest) => request.system.startsWith("You are a sub-agent");

async function collect(events: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The root thinks, says a word, fans out into two parallel sub-tasks (each calls echo), then answers. */
export async function parallelSubtasksRun(): Promise<RuntimeEvent[]> {
  const { runtime } = makeRuntime(
    (request): FakeTurn => {
      const last = request.messages.at(-1)!;
      if (isChild(request)) {
        return last.role === "user"
          ? { text: "Checking. ", toolCalls: [{ name: "echo", args: { text: textOf(last) } }] }
          : { text: `found ${textOf(request.messages[0])}` };
      }
      return last.role === "user"
        ? {
            thinking: "Two independent lookups.",
            text: "Let me split this. ",
            toolCalls: [
              { id: "sub_a", name: "run_subtask", args: { title: "Look up A", instructions: "alpha" } },
              { id: "sub_b", name: "run_subtask", args: { title: "Look up B", instructions: "beta" } },
            ],
            usage: { inputTokens: 10, outputTokens: 5 },
          }
        : { text: "Both found.", usage: { inputTokens: 20, outputTokens: 3 } };
    },
    { tools: [echo] },
  );
  return collect(runtime.stream({ agentId: "general", content: "look up alpha and beta" }));
}

/** A tool needing approval suspends the turn; the resumed turn (denied) ends the call. */
export async function approvalRuns(approved: boolean): Promise<{ suspended: RuntimeEvent[]; resumed: RuntimeEvent[] }> {
  const { runtime, events, todo } = makeRuntime((request): FakeTurn => {
    const last = request.messages.at(-1)!;
    return last.role === "tool"
      ? { text: `tool said ${JSON.stringify(last.content[0]!.result)}` }
      : { toolCalls: [{ id: "del_1", name: "todo_delete", args: { item: "milk" } }] };
  });
  todo.items.push("milk");
  const suspended = await collect(runtime.stream({ agentId: "todo", content: "delete milk" }));
  const [pending] = await runtime.pendingApprovals();
  const before = events.length;
  await runtime.resolveApproval(
    pending!.requestId,
    approved ? { approved: true } : { approved: false, reason: "keep it" },
  );
  return { suspended, resumed: events.slice(before) };
}

/** A message sent while the session waits for a decision: stored, the stream ends after `message_queued`. */
export async function queuedRun(): Promise<RuntimeEvent[]> {
  const { runtime } = makeRuntime((): FakeTurn => ({ toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] }));
  const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
  return collect(runtime.stream({ agentId: "todo", content: "and then?", session: suspended.sessionId }));
}

/** The provider fails for good: the turn ends with status error. */
export async function errorRun(): Promise<RuntimeEvent[]> {
  const { runtime } = makeRuntime([
    {
      text: "Starting",
      error: new ProviderError("upstream overloaded", { provider: "fake", status: 529, retryable: true }),
    },
  ]);
  return collect(runtime.stream({ agentId: "general", content: "hi" }));
}

const plan = {
  type: "plan" as const,
  format_version: "1.0" as const,
  goal: "Ship the report",
  steps: [
    { step_number: 1, action: "Collect numbers" },
    { step_number: 2, action: "Write summary", reason: "readers skim" },
  ],
  risks: ["numbers are late"],
};

/**
 * A planning turn: the runtime does not emit plan / question / task events yet, so the API.md
 * shapes are added to a real run's events, before its `done`, stamped like runtime events.
 */
export async function planRun(): Promise<DeliverableEvent[]> {
  const { runtime } = makeRuntime([{ text: "I drafted a plan." }]);
  const real = await collect(runtime.stream({ agentId: "general", content: "plan the report" }));
  const done = real.at(-1)!;
  const stamp = {
    sessionId: done.sessionId,
    agentId: done.agentId,
    runId: done.runId,
    ts: done.ts,
    depth: 0,
    parentId: null,
  };
  let seq = done.seq;
  const next = () => ({ ...stamp, seq: seq++ });
  const synthetic: DeliverableEvent[] = [
    { ...next(), type: "task_status", taskId: "task_1", from: null, to: "planning" },
    { ...next(), type: "planning_started", taskId: "task_1" },
    {
      ...next(),
      type: "artifact_created",
      artifactId: "art_1",
      filename: "plan.md",
      kind: "plan",
      preview: "# Ship the report",
    },
    {
      ...next(),
      type: "plan_ready",
      artifactId: "art_1",
      plan,
      summary: {
        goal_summary: plan.goal,
        steps: plan.steps.map((step) => ({
          title: step.action,
          description: step.reason ? `${step.action} — ${step.reason}` : step.action,
        })),
      },
      taskId: "task_1",
    },
    { ...next(), type: "task_status", taskId: "task_1", from: "planning", to: "awaiting_review" },
    {
      ...next(),
      type: "question",
      questionId: "q_1",
      toolCallId: "call_ask",
      question: {
        type: "question",
        format_version: "1.0",
        question: "Which quarter?",
        severity: "major",
        options: [
          { label: "Q1", value: "q1" },
          { label: "Q2", value: "q2" },
        ],
      },
    },
    { ...next(), type: "role_changed", sessionId: done.sessionId, from: "planner", to: "actor" },
  ];
  return [...real.slice(0, -1), ...synthetic, { ...done, seq }];
}

export async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** `events` with a marker in the root `done`'s message history and execution tree, to show that nothing of them reaches a client. */
export function withMarkedHistory(events: RuntimeEvent[], marker: string): RuntimeEvent[] {
  return events.map((event) => {
    if (event.type !== "done" || event.depth !== 0) return event;
    const { result } = event;
    return {
      ...event,
      result: {
        ...result,
        messages: [...result.messages, { role: "user", content: marker }],
        executionTree: {
          version: 1,
          nodes: [...result.executionTree.nodes, { id: "m", parent_id: null, name: marker, duration_ms: 0 }],
        },
      },
    };
  });
}

/** A long tool writes two progress lines through its context, then the model answers. */
export async function toolLogRun(): Promise<RuntimeEvent[]> {
  const sync = defineTool({
    name: "sync_files",
    description: "Sync the files",
    input: z.object({}),
    execute: (_args, ctx) => {
      ctx.log?.("info", "copied 10 of 20");
      ctx.log?.("warn", "one file skipped");
      return "synced";
    },
  });
  const { runtime } = makeRuntime(
    (request): FakeTurn =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "Synced." }
        : { toolCalls: [{ id: "sync_1", name: "sync_files", args: {} }] },
    { tools: [sync] },
  );
  return collect(runtime.stream({ agentId: "general", content: "sync" }));
}

/** A tool that reports two preliminary results (an `async function*`), then returns its final one. */
export async function toolProgressRun(): Promise<RuntimeEvent[]> {
  const search = defineTool({
    name: "search_flights",
    description: "Search flights",
    input: z.object({}),
    async *execute() {
      yield { found: 1, done: false };
      yield { found: 3, done: false };
      return { found: 3, done: true };
    },
  });
  const { runtime } = makeRuntime(
    (request): FakeTurn =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "Found 3." }
        : { toolCalls: [{ id: "search_1", name: "search_flights", args: {} }] },
    { tools: [search] },
  );
  return collect(runtime.stream({ agentId: "general", content: "search" }));
}

/**
 * The root streams two calls' arguments, interleaved, then runs them and answers; with `cutOff`, the
 * response is cut by the token limit instead: the calls streamed but never start.
 */
export async function streamedArgsRun(options: { cutOff?: boolean } = {}): Promise<RuntimeEvent[]> {
  const { runtime } = makeRuntime(
    (request): FakeTurn =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "Both echoed." }
        : {
            text: "Calling. ",
            toolCalls: [
              { id: "echo_1", name: "echo", args: { text: "a fairly long first argument" } },
              { id: "echo_2", name: "echo", args: { text: "second" } },
            ],
            streamToolArgs: { pieces: 3, interleaved: true },
            ...(options.cutOff && { finishReason: "length" as const }),
          },
    { tools: [echo] },
  );
  return collect(runtime.stream({ agentId: "general", content: "echo twice" }));
}

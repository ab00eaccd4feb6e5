import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { EventSchemas } from "@ag-ui/core/schemas";
import type { DeliverableEvent } from "@agentry/core";
import { toAgUiEvents, type AgUiEvent, type AgUiEventsOptions } from "@agentry/core/ui";
import {
  approvalRuns,
  errorRun,
  iterate,
  parallelSubtasksRun,
  planRun,
  queuedRun,
  streamedArgsRun,
  toolLogRun,
  withMarkedHistory,
} from "./scenarios.js";

/** Applies the add/replace operations the converter writes (RFC 6902 subset). */
function applyPatch(state: any, ops: { op: string; path: string; value?: unknown }[]) {
  for (const op of ops) {
    const tokens = op.path
      .split("/")
      .slice(1)
      .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
    const last = tokens.pop()!;
    let target = state;
    for (const token of tokens) {
      if (!(token in target)) throw new Error(`patch path ${op.path} does not resolve`);
      target = target[token];
    }
    if (op.op === "replace" && !(last in target)) throw new Error(`replace of missing ${op.path}`);
    target[last] = op.value;
  }
}

/**
 * Every event through `@ag-ui/core`'s own schema (and nothing dropped by it), then the
 * lifecycle rules of the protocol: runs, messages, tool calls and subagents open before they
 * are used and closed once; state deltas apply to the snapshot.
 */
async function throughAgUi(events: DeliverableEvent[], options: AgUiEventsOptions = {}) {
  const out: AgUiEvent[] = [];
  for await (const event of toAgUiEvents(iterate(events), options)) out.push(event);
  const problems: string[] = [];
  for (const event of out) {
    const parsed = EventSchemas.safeParse(event);
    if (!parsed.success) problems.push(`${event.type}: ${parsed.error.message}`);
    else if (!isDeepStrictEqual(parsed.data, JSON.parse(JSON.stringify(event))))
      problems.push(`${event.type}: the schema dropped fields`);
  }
  let run: string | undefined;
  const texts = new Set<string>();
  const reasoning = new Set<string>();
  const calls = new Map<string, "open" | "ended" | "result">();
  /** Each call's TOOL_CALL_ARGS joined: JSON once the call ends (streamed pieces are not JSON on their own). */
  const args = new Map<string, string>();
  const subagents = new Map<string, "open" | "done">();
  let state: any;
  const runs: AgUiEvent[] = [];
  for (const e of out) {
    const sub = e.subagentRunId as string | undefined;
    if (
      sub &&
      e.type !== "SUBAGENT_FINISHED" &&
      e.type !== "SUBAGENT_ERROR" &&
      e.type !== "SUBAGENT_STARTED" &&
      subagents.get(sub) !== "open"
    )
      problems.push(`${e.type} attributed to a subagent that is not open: ${sub}`);
    if (e.type !== "RUN_STARTED" && run === undefined) problems.push(`${e.type} outside a run`);
    switch (e.type) {
      case "RUN_STARTED":
        if (run !== undefined) problems.push("nested run");
        run = e.runId as string;
        break;
      case "RUN_FINISHED":
      case "RUN_ERROR":
        if (texts.size + reasoning.size > 0) problems.push("run ended with open messages");
        runs.push(e);
        run = undefined;
        break;
      case "TEXT_MESSAGE_START":
        texts.add(e.messageId as string);
        break;
      case "TEXT_MESSAGE_CONTENT":
        if (!texts.has(e.messageId as string)) problems.push("content of a closed message");
        break;
      case "TEXT_MESSAGE_END":
        if (!texts.delete(e.messageId as string)) problems.push("end of a closed message");
        break;
      case "REASONING_MESSAGE_START":
        reasoning.add(e.messageId as string);
        break;
      case "REASONING_MESSAGE_CONTENT":
        if (!reasoning.has(e.messageId as string)) problems.push("reasoning content of a closed message");
        break;
      case "REASONING_MESSAGE_END":
        if (!reasoning.delete(e.messageId as string)) problems.push("end of closed reasoning");
        break;
      case "TOOL_CALL_START":
        if (calls.has(e.toolCallId as string)) problems.push("tool call started twice");
        calls.set(e.toolCallId as string, "open");
        break;
      case "TOOL_CALL_ARGS":
        if (calls.get(e.toolCallId as string) !== "open") problems.push("args of a closed call");
        args.set(e.toolCallId as string, (args.get(e.toolCallId as string) ?? "") + (e.delta as string));
        break;
      case "TOOL_CALL_END":
        if (calls.get(e.toolCallId as string) !== "open") problems.push("end of a closed call");
        calls.set(e.toolCallId as string, "ended");
        break;
      case "TOOL_CALL_RESULT":
        if (calls.get(e.toolCallId as string) !== "ended")
          problems.push(`result of a call not ended: ${String(e.toolCallId)}`);
        try {
          JSON.parse(args.get(e.toolCallId as string) ?? "");
        } catch {
          problems.push(`arguments of a call that ran are not JSON: ${String(e.toolCallId)}`);
        }
        calls.set(e.toolCallId as string, "result");
        break;
      case "SUBAGENT_STARTED":
        subagents.set(e.subagentRunId as string, "open");
        break;
      case "SUBAGENT_FINISHED":
      case "SUBAGENT_ERROR":
        if (subagents.get(e.subagentRunId as string) !== "open") problems.push("subagent ended twice or never started");
        subagents.set(e.subagentRunId as string, "done");
        break;
      case "STATE_SNAPSHOT":
        state = structuredClone(e.snapshot);
        break;
      case "STATE_DELTA":
        try {
          applyPatch(state, e.delta as never);
        } catch (error) {
          problems.push((error as Error).message);
        }
        break;
    }
  }
  if (run !== undefined) problems.push("run never ended");
  for (const [id, status] of calls) if (status === "open") problems.push(`call never ended: ${id}`);
  return { out, problems, state, runs };
}

const ofType = (out: AgUiEvent[], type: string) => out.filter((e) => e.type === type);

describe("toAgUiEvents (checked with @ag-ui/core's schemas)", () => {
  it("ends with the turn's outcome only: nothing of the done event's message history or execution tree reaches the client", async () => {
    const { out, problems } = await throughAgUi(withMarkedHistory(await parallelSubtasksRun(), "HISTORY-MARKER"));
    expect(problems).toEqual([]);
    expect(out.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(JSON.stringify(out)).not.toContain("HISTORY-MARKER");
  });

  it("maps a run with parallel sub-tasks: one run, subagents per run_subtask, attributed messages and calls, state tree", async () => {
    const events = await parallelSubtasksRun();
    const { out, problems, state, runs } = await throughAgUi(events);
    expect(problems).toEqual([]);
    expect(out[0]).toMatchObject({ type: "RUN_STARTED", threadId: events[0]!.sessionId, runId: events[0]!.runId });
    expect(runs).toEqual([
      expect.objectContaining({
        type: "RUN_FINISHED",
        result: "Both found.",
        outcome: { type: "success" },
        usage: [{ model: "fake-model", inputTokens: 30, outputTokens: 8, totalTokens: 38 }],
      }),
    ]);
    expect(ofType(out, "SUBAGENT_STARTED").map((e) => [e.subagentRunId, e.description, e.parentToolCallId])).toEqual([
      ["sub_a", "Look up A", "sub_a"],
      ["sub_b", "Look up B", "sub_b"],
    ]);
    expect(
      ofType(out, "SUBAGENT_FINISHED")
        .map((e) => [e.subagentRunId, e.result])
        .sort(),
    ).toEqual([
      ["sub_a", "found alpha"],
      ["sub_b", "found beta"],
    ]);
    // The children's echo calls and texts are attributed to their sub-task.
    const echoStarts = ofType(out, "TOOL_CALL_START").filter((e) => e.toolCallName === "echo");
    expect(echoStarts.map((e) => e.subagentRunId).sort()).toEqual(["sub_a", "sub_b"]);
    const childText = ofType(out, "TEXT_MESSAGE_CONTENT")
      .filter((e) => e.subagentRunId === "sub_a")
      .map((e) => e.delta)
      .join("");
    expect(childText).toBe("Checking. found alpha");
    const rootText = ofType(out, "TEXT_MESSAGE_CONTENT")
      .filter((e) => e.subagentRunId === undefined)
      .map((e) => e.delta)
      .join("");
    expect(rootText).toBe("Let me split this. Both found.");
    expect(
      ofType(out, "REASONING_MESSAGE_CONTENT")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Two independent lookups.");
    expect(
      Object.values(state.tools)
        .map((t: any) => [t.name, t.depth, t.parentId, t.status])
        .sort(),
    ).toEqual([
      ["echo", 1, "sub_a", "done"],
      ["echo", 1, "sub_b", "done"],
      ["run_subtask", 0, null, "done"],
      ["run_subtask", 0, null, "done"],
    ]);
  });

  it("ends a suspended turn with an interrupt for the approval, and the resumed turn as a new run", async () => {
    const { suspended, resumed } = await approvalRuns(false);
    const first = await throughAgUi(suspended);
    expect(first.problems).toEqual([]);
    const request = suspended.find((e) => e.type === "approval_request");
    const requestId = request?.type === "approval_request" ? request.request.requestId : "";
    expect(first.runs).toEqual([
      expect.objectContaining({
        type: "RUN_FINISHED",
        outcome: {
          type: "interrupt",
          interrupts: [
            expect.objectContaining({
              id: requestId,
              reason: "tool_approval",
              toolCallId: "del_1",
              responseSchema: expect.any(Object),
            }),
          ],
        },
      }),
    ]);
    expect(first.state.tools.del_1.status).toBe("awaiting_approval");

    const second = await throughAgUi(resumed);
    expect(second.problems).toEqual([]);
    expect(second.runs[0]).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(second.state.tools.del_1.status).toBe("error");
    expect(ofType(second.out, "CUSTOM").find((e) => e.name === "agentry.approval_resolved")?.value).toMatchObject({
      approved: false,
      reason: "keep it",
    });
  });

  it("maps a plan and a question to interrupts and state, and task status to state", async () => {
    const { out, problems, state, runs } = await throughAgUi(await planRun());
    expect(problems).toEqual([]);
    const outcome = runs[0]!.outcome as {
      type: string;
      interrupts: { id: string; reason: string; toolCallId?: string }[];
    };
    expect(outcome.type).toBe("interrupt");
    expect(outcome.interrupts.map((i) => [i.id, i.reason])).toEqual([
      ["art_1", "plan_review"],
      ["q_1", "question"],
    ]);
    // The question's interrupt names the ask_user call it answers, as an approval's does.
    expect(outcome.interrupts.find((i) => i.id === "q_1")?.toolCallId).toBe("call_ask");
    expect(state.task).toEqual({ taskId: "task_1", status: "awaiting_review" });
    expect(state.plan.plan.goal).toBe("Ship the report");
    expect(ofType(out, "CUSTOM").find((e) => e.name === "agentry.question")?.value).toMatchObject({
      questionId: "q_1",
      toolCallId: "call_ask",
    });
    expect(ofType(out, "CUSTOM").map((e) => e.name)).toEqual(
      expect.arrayContaining([
        "agentry.planning_started",
        "agentry.artifact_created",
        "agentry.plan_ready",
        "agentry.question",
        "agentry.role_changed",
        "agentry.task_status",
      ]),
    );
  });

  it("streams a call's arguments: TOOL_CALL_START at the first delta (once), TOOL_CALL_ARGS per piece, END at the call's start", async () => {
    const events = await streamedArgsRun();
    const { out, problems, state } = await throughAgUi(events);
    expect(problems).toEqual([]);
    expect(ofType(out, "TOOL_CALL_START").map((e) => e.toolCallId)).toEqual(["echo_1", "echo_2"]);
    const firstStart = out.findIndex((e) => e.type === "TOOL_CALL_START");
    const firstArgs = out.findIndex((e) => e.type === "TOOL_CALL_ARGS");
    expect(firstArgs).toBeGreaterThan(firstStart);
    for (const id of ["echo_1", "echo_2"]) {
      const pieces = ofType(out, "TOOL_CALL_ARGS").filter((e) => e.toolCallId === id);
      expect(pieces.length).toBeGreaterThanOrEqual(3);
      const start = events.find((e) => e.type === "tool_call_update" && e.status === "start" && e.toolCallId === id);
      expect(JSON.parse(pieces.map((e) => e.delta).join(""))).toEqual((start as { args: unknown }).args);
    }
    // Interleaved: the second call's first piece before the first call's last one.
    const order = ofType(out, "TOOL_CALL_ARGS").map((e) => e.toolCallId);
    expect(order.indexOf("echo_2")).toBeLessThan(order.lastIndexOf("echo_1"));
    expect(Object.values(state.tools).map((t: any) => t.status)).toEqual(["done", "done"]);
  });

  it("ends streamed calls that were cut off with TOOL_CALL_END and no result", async () => {
    const { out, problems, state } = await throughAgUi(await streamedArgsRun({ cutOff: true }));
    expect(problems).toEqual([]);
    expect(ofType(out, "TOOL_CALL_END").map((e) => e.toolCallId)).toEqual(["echo_1", "echo_2"]);
    expect(ofType(out, "TOOL_CALL_RESULT")).toEqual([]);
    expect(state.tools).toEqual({});
  });

  it("carries a tool's log lines as CUSTOM agentry.tool_log events", async () => {
    const { problems } = await throughAgUi(await toolLogRun());
    expect(problems).toEqual([]);
    const out: AgUiEvent[] = [];
    for await (const event of toAgUiEvents(iterate(await toolLogRun()))) out.push(event);
    const lines = out
      .filter((event) => event.type === "CUSTOM" && event.name === "agentry.tool_log")
      .map((event) => event.value);
    expect(lines).toEqual([
      expect.objectContaining({ toolCallId: "sync_1", name: "sync_files", level: "info", message: "copied 10 of 20" }),
      expect.objectContaining({ toolCallId: "sync_1", name: "sync_files", level: "warn", message: "one file skipped" }),
    ]);
  });

  it("ends a failed turn with RUN_ERROR carrying the provider's message", async () => {
    const { problems, runs } = await throughAgUi(await errorRun(), { onError: (error) => error.message });
    expect(problems).toEqual([]);
    expect(runs).toEqual([
      expect.objectContaining({
        type: "RUN_ERROR",
        code: "error",
        message: expect.stringMatching(/upstream overloaded/),
      }),
    ]);
  });

  it("masks error text unless the host's onError says otherwise: the run's error and tool error results", async () => {
    const { runs } = await throughAgUi(await errorRun());
    expect(runs).toEqual([
      expect.objectContaining({ type: "RUN_ERROR", code: "error", message: "An error occurred." }),
    ]);
    const failedTool = (await parallelSubtasksRun()).map((event) =>
      event.type === "tool_call_update" && event.status === "end" && event.depth === 0
        ? { ...event, isError: true, result: "EACCES /srv/secret/path" }
        : event,
    );
    const masked = await throughAgUi(failedTool);
    const text = JSON.stringify(masked.out);
    expect(text).not.toContain("/srv/secret/path");
    expect(text).toContain("An error occurred.");
    const shown = await throughAgUi(failedTool, {
      onError: ({ kind, name, message }) => `${kind} ${name}: ${message}`,
    });
    expect(JSON.stringify(shown.out)).toContain("/srv/secret/path");
  });

  it("ends the run of a message stored behind a pending decision with CUSTOM agentry.message_queued and RUN_FINISHED", async () => {
    const events = await queuedRun();
    const { out, problems, runs } = await throughAgUi(events);
    expect(problems).toEqual([]);
    expect(out.map((e) => e.type)).toEqual(["RUN_STARTED", "STATE_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]);
    expect(out[2]).toMatchObject({
      name: "agentry.message_queued",
      value: { queuedMessageId: `queued:${events[0]!.runId}`, pendingRequestIds: [expect.any(String)] },
    });
    expect(runs).toEqual([expect.objectContaining({ type: "RUN_FINISHED", outcome: { type: "success" } })]);
  });

  it("closes a run whose events stop early, or whose source throws, with RUN_ERROR", async () => {
    const events = await parallelSubtasksRun();
    const cut = await throughAgUi(events.slice(0, 12));
    expect(cut.problems.filter((p) => !p.includes("not ended"))).toEqual([]);
    expect(cut.runs.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "incomplete" });
    async function* failing(): AsyncGenerator<DeliverableEvent> {
      yield events[0]!;
      throw new Error("connection lost");
    }
    const out: AgUiEvent[] = [];
    for await (const e of toAgUiEvents(failing(), { onError: (error) => error.message })) out.push(e);
    expect(out.at(-1)).toMatchObject({ type: "RUN_ERROR", message: "connection lost" });
  });
});

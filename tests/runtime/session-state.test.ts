import { describe, expect, it } from "vitest";
import type { HistoryRecord } from "@agentry/core";
import { readSessionState } from "../../src/runtime/records/session-state.js";

const at = "2026-01-01T00:00:00.000Z";
const result = (toolCallId: string) => ({
  type: "tool_result" as const,
  toolCallId,
  name: "echo",
  result: `result of ${toolCallId}`,
});

describe("session state: tool results by call id", () => {
  it("keeps a result under any id a provider sent, __proto__ and constructor included", () => {
    const ids = ["__proto__", "constructor", "toString", "call_1"];
    const records: HistoryRecord[] = [
      { id: "t", seq: 1, at, frame: null, kind: "turn", runId: "run-1", phase: "start" },
      ...ids.map((toolCallId, index): HistoryRecord => ({
        id: `r${index}`,
        seq: index + 2,
        at,
        frame: null,
        kind: "tool_result",
        runId: "run-1",
        toolCallId,
        result: result(toolCallId),
      })),
    ];
    const { toolResults } = readSessionState(records);
    for (const id of ids) {
      expect(Object.hasOwn(toolResults, id)).toBe(true);
      expect(toolResults[id]).toEqual(result(id));
    }
    expect(Object.keys(toolResults).sort()).toEqual([...ids].sort());
  });
});

describe("session state: stored queued messages", () => {
  let seq = 0;
  const record = (fields: Record<string, unknown>): HistoryRecord =>
    ({ id: `r${++seq}`, seq, at, frame: null, ...fields }) as HistoryRecord;
  const queued = (runId: string) =>
    record({ kind: "queued", runId, message: { role: "user", content: runId }, id: `queued:${runId}` });
  const turn = (runId: string, phase: "start" | "end", status?: string) =>
    record({ kind: "turn", runId, phase, ...(status !== undefined && { status }) });
  const names = (records: HistoryRecord[]) => {
    const state = readSessionState(records);
    return { queued: state.queued.map((q) => q.runId), open: state.openQueued?.runId };
  };

  it("lists the queued messages whose turn has not started, in arrival order", () => {
    seq = 0;
    expect(names([queued("q1"), queued("q2"), queued("q1")])).toEqual({ queued: ["q1", "q2"], open: undefined });
    expect(names([queued("q1"), queued("q2"), turn("q1", "start")])).toEqual({ queued: ["q2"], open: "q1" });
    expect(names([queued("q1"), turn("q1", "start"), turn("q1", "end", "complete")])).toEqual({
      queued: [],
      open: undefined,
    });
  });

  it("keeps a message whose turn's process died open across the repair's end and its continuation", () => {
    seq = 0;
    const crashed = [queued("q1"), turn("q1", "start"), turn("q1", "end", "error"), turn("q1:retry-1", "start")];
    expect(names(crashed)).toEqual({ queued: [], open: "q1" });
    expect(names([...crashed, turn("q1:retry-1", "end", "complete")])).toEqual({ queued: [], open: undefined });
  });

  it("a turn of another run id leaves them queued; a reset drops them", () => {
    seq = 0;
    expect(names([queued("q1"), turn("other", "start")])).toEqual({ queued: ["q1"], open: undefined });
    expect(names([queued("q1"), record({ kind: "reset" })])).toEqual({ queued: [], open: undefined });
  });
});

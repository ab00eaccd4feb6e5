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

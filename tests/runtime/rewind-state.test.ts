import { describe, expect, it } from "vitest";
import type { HistoryRecord, Message } from "@agentry/core";
import { estimateMessageTokens } from "../../src/context/estimate-tokens.js";
import { readSessionState, SessionStateReader } from "../../src/runtime/records/session-state.js";
import { conversationOf } from "../../src/sessions/conversation.js";

const at = "2026-01-01T00:00:00.000Z";
const user = (text: string, silent = false): Message => ({ role: "user", content: text, ...(silent && { silent }) });
const calls: Message = { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "echo", args: {} }] };
const results: Message = {
  role: "tool",
  content: [{ type: "tool_result", toolCallId: "c1", name: "echo", result: 1 }],
};
const answer: Message = { role: "assistant", content: [{ type: "text", text: "ok" }] };

/** A turn whose calls' results came after a silent note (stored while the turn waited). */
function log(): HistoryRecord[] {
  let seq = 0;
  const record = (fields: Record<string, unknown>) => ({ seq: ++seq, at, frame: null, ...fields }) as HistoryRecord;
  return [
    record({ id: "r1:0", kind: "turn", runId: "r1", phase: "start" }),
    record({ id: "r1:1", kind: "message", message: user("a"), messageId: "ua" }),
    record({ id: "r1", kind: "message", message: calls }),
    record({ id: "note", kind: "message", message: user("note", true), messageId: "n" }),
    record({ id: "r1:2", kind: "message", message: results }),
    record({ id: "r1:3", kind: "message", message: answer }),
    record({ id: "r1:4", kind: "turn", runId: "r1", phase: "end", status: "complete" }),
  ];
}
const rewind = (seq: number, before: string, beforeSeq?: number): HistoryRecord =>
  ({
    id: `w${seq}`,
    seq,
    at,
    frame: null,
    kind: "rewind",
    before,
    ...(beforeSeq !== undefined && { beforeSeq }),
    toolCalls: [],
    cause: "rewind",
  }) as HistoryRecord;
const tokens = (messages: Message[]) => messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0);

describe("session state: rewind records", () => {
  it("keep what came before the message, and the results of kept calls stored after it", () => {
    const records = [...log(), rewind(8, "n", 4)];
    const state = readSessionState(records);
    expect(state.history).toEqual([user("a"), calls, results]);
    expect(state.messageRefs.map((r) => r.id)).toEqual(["ua", "r1", "r1:2"]);
    expect(state.historyTokens).toBe(tokens(state.history));
    expect(conversationOf(records).map((r) => r.message)).toEqual(state.history);
  });

  it("a rewind before an assistant's calls takes their results out too; one by id alone works; an unknown one changes nothing", () => {
    const records = [...log(), rewind(8, "r1")];
    const state = readSessionState(records);
    expect(state.history).toEqual([user("a")]);
    expect(state.historyTokens).toBe(tokens([user("a")]));
    expect(conversationOf(records).map((r) => r.message)).toEqual([user("a")]);
    const unknown = readSessionState([...log(), rewind(8, "nope", 99)]);
    expect(unknown.history).toEqual(readSessionState(log()).history);
  });

  it("applies the same when read incrementally, and a later message follows the kept ones", () => {
    const records = [
      ...log(),
      rewind(8, "ua", 2),
      { id: "b", seq: 9, at, frame: null, kind: "message", message: user("b") } as HistoryRecord,
    ];
    const whole = readSessionState(records);
    const reader = new SessionStateReader();
    reader.apply(records.slice(0, 7));
    expect(reader.state().history).toHaveLength(5);
    reader.apply(records.slice(7));
    expect(reader.state()).toEqual(whole);
    expect(whole.history).toEqual([user("b")]);
    expect(whole.messageRefs).toEqual([{ id: "b", seq: 9, tokens: tokens([user("b")]), runId: undefined }]);
    expect(conversationOf(records).map((r) => r.message)).toEqual([user("b")]);
  });
});

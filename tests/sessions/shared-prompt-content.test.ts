import { describe, expect, it } from "vitest";
import { InvalidArgumentError, MemorySessionStore, type HistoryRecord, type NewRecord } from "@agentry/core";
import { SharedPromptContent } from "../../src/sessions/shared-prompt-content.js";

const tools = () => [{ name: "echo", description: "Echo", inputSchema: { type: "object", properties: {} } }];
const promptRecord = (seq: number, list: unknown = tools()): HistoryRecord =>
  ({
    id: "prompt:t-1",
    frame: null,
    kind: "prompt",
    digest: "t-1",
    tools: list,
    seq,
    at: "2026-01-01T00:00:00.000Z",
  }) as HistoryRecord;

describe("SharedPromptContent", () => {
  it("keeps one copy of a tool list that prompt records of many sessions hold, not the caller's", () => {
    const content = new SharedPromptContent();
    const input = promptRecord(1);
    const a = content.stored(input, "a");
    const b = content.stored(promptRecord(7), "b");
    expect(a.kind === "prompt" && b.kind === "prompt" && a.tools === b.tools).toBe(true);
    expect(a.kind === "prompt" && input.kind === "prompt" && a.tools !== input.tools).toBe(true);
    expect(b).toEqual(promptRecord(7));
  });

  it("copies other lists and records as JSON does, and refuses what JSON cannot hold", () => {
    const content = new SharedPromptContent();
    const other = [{ name: "other", description: "", inputSchema: { type: "object" } }];
    const a = content.stored(promptRecord(1), "a");
    const b = content.stored(promptRecord(2, other), "b");
    expect(b.kind === "prompt" && b.tools).toEqual(other);
    expect(a.kind === "prompt" && b.kind === "prompt" && a.tools === b.tools).toBe(false);
    expect(() => content.stored(promptRecord(3, [{ name: 1n }]), "c")).toThrow(InvalidArgumentError);
  });
});

describe("MemorySessionStore with shared tool lists", () => {
  it("hands out copies: changing a loaded tool list changes no other session's", async () => {
    const store = new MemorySessionStore();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { sessionId } = await store.createSession({ agentId: "a" });
      ids.push(sessionId);
      const record = { id: "prompt:t-1", frame: null, kind: "prompt", digest: "t-1", tools: tools() } as NewRecord;
      await store.append(sessionId, [record]);
    }
    const [first] = await store.load(ids[0]!);
    if (first?.kind !== "prompt") throw new Error("expected a prompt record");
    first.tools![0]!.name = "changed";
    const [second] = await store.load(ids[1]!);
    const [again] = await store.load(ids[0]!);
    expect(second?.kind === "prompt" && second.tools).toEqual(tools());
    expect(again?.kind === "prompt" && again.tools).toEqual(tools());
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemorySessionStore, type HistoryRecord, type Message, type SessionStore } from "@agentry/core";
import { keepCallsTogether, readSessionState, SessionStateReader } from "../../src/runtime/records/session-state.js";
import { estimateTokens } from "../../src/context/estimate-tokens.js";
import { makeRuntime } from "./helpers.js";

/** A memory store that remembers the options of every `load`. */
class CountingStore extends MemorySessionStore {
  loads: { sessionId: string; options: Parameters<SessionStore["load"]>[1] }[] = [];
  override load(sessionId: string, options?: Parameters<SessionStore["load"]>[1]) {
    this.loads.push({ sessionId, options });
    return super.load(sessionId, options);
  }
}

const replyWithCount = (request: { messages: Message[] }) => ({ text: `seen ${request.messages.length}` });

describe("session state kept between turns", () => {
  it("loads a session whole once, then only the records appended since", async () => {
    const store = new CountingStore();
    const { runtime, provider } = makeRuntime(replyWithCount, { store });
    const first = await runtime.send({ agentId: "general", content: "one" });
    for (const content of ["two", "three", "four"])
      await runtime.send({ agentId: "general", content, session: first.sessionId });
    const options = store.loads.filter((l) => l.sessionId === first.sessionId).map((l) => l.options);
    expect(options[0]).toEqual({ sinceLastReset: true });
    // Each turn reads what was appended since the last read: the previous turn's five records
    // (start, user, assistant, its model call, end; the first turn also stored two prompt records).
    expect(options.slice(1)).toEqual([{ afterSeq: 0 }, { afterSeq: 7 }, { afterSeq: 12 }]);
    // And the model still saw the whole conversation each turn.
    expect(provider.calls.map((c) => c.messages.length)).toEqual([1, 3, 5, 7]);
  });

  it("sees what another process appended between turns, a clear, and a session deleted and made again", async () => {
    const store = new MemorySessionStore();
    const { runtime, provider } = makeRuntime(replyWithCount, { store });
    const a = await runtime.send({ agentId: "general", content: "one" });

    // Another writer (another process, say) adds a silent note.
    await store.append(a.sessionId, [
      {
        id: "note",
        frame: null,
        kind: "message",
        message: { role: "user", content: "a note", origin: "x", silent: true },
      },
    ]);
    await runtime.send({ agentId: "general", content: "two", session: a.sessionId });
    expect(provider.calls.at(-1)!.messages.map((m) => (typeof m.content === "string" ? m.content : m.role))).toEqual([
      "one",
      "assistant",
      "a note",
      "two",
    ]);

    await store.clear(a.sessionId);
    await runtime.send({ agentId: "general", content: "three", session: a.sessionId });
    expect(provider.calls.at(-1)!.messages).toEqual([{ role: "user", content: "three" }]);

    await store.deleteSession(a.sessionId);
    await new Promise((resolve) => setTimeout(resolve, 2)); // a later createdAt
    await store.createSession({ agentId: "general", sessionId: a.sessionId });
    await runtime.send({ agentId: "general", content: "four", session: a.sessionId });
    expect(provider.calls.at(-1)!.messages).toEqual([{ role: "user", content: "four" }]);
  });

  it("a second runtime over the same store continues where the first left off", async () => {
    const store = new MemorySessionStore();
    const one = makeRuntime(replyWithCount, { store });
    const two = makeRuntime(replyWithCount, { store });
    const a = await one.runtime.send({ agentId: "general", content: "one" });
    await two.runtime.send({ agentId: "general", content: "two", session: a.sessionId });
    await one.runtime.send({ agentId: "general", content: "three", session: a.sessionId });
    expect(one.provider.calls.at(-1)!.messages).toHaveLength(5);
  });

  it("sessionCacheSize: 0 loads every turn afresh; a full cache drops the least recently used session", async () => {
    const off = new CountingStore();
    const { runtime } = makeRuntime(replyWithCount, { store: off, sessionCacheSize: 0 });
    const s = await runtime.send({ agentId: "general", content: "one" });
    await runtime.send({ agentId: "general", content: "two", session: s.sessionId });
    expect(off.loads.map((l) => l.options)).toEqual([{ sinceLastReset: true }, { sinceLastReset: true }]);

    const small = new CountingStore();
    const tiny = makeRuntime(replyWithCount, { store: small, sessionCacheSize: 1 });
    const x = await tiny.runtime.send({ agentId: "general", content: "x1", session: "create" });
    const y = await tiny.runtime.send({ agentId: "general", content: "y1", session: "create" });
    await tiny.runtime.send({ agentId: "general", content: "y2", session: y.sessionId });
    await tiny.runtime.send({ agentId: "general", content: "x2", session: x.sessionId });
    expect(small.loads.map((l) => [l.sessionId === x.sessionId ? "x" : "y", l.options])).toEqual([
      ["x", { sinceLastReset: true }],
      ["y", { sinceLastReset: true }],
      ["y", { afterSeq: 0 }],
      ["x", { sinceLastReset: true }],
    ]);
    expect(tiny.provider.calls.at(-1)!.messages).toHaveLength(3);
  });

  it("rejects a sessionCacheSize that is not a whole number of 0 or more", () => {
    for (const sessionCacheSize of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => makeRuntime(replyWithCount, { sessionCacheSize })).toThrow(
        /sessionCacheSize must be a whole number/,
      );
    }
  });

  it("a failed load is a SessionStoreError and the next turn reads the session afresh", async () => {
    const store = new CountingStore();
    const { runtime } = makeRuntime(replyWithCount, { store });
    const a = await runtime.send({ agentId: "general", content: "one" });
    const load = store.load.bind(store);
    store.load = () => Promise.reject(new Error("disk on fire"));
    await expect(runtime.send({ agentId: "general", content: "two", session: a.sessionId })).rejects.toThrow(
      /disk on fire/,
    );
    store.load = load;
    const b = await runtime.send({ agentId: "general", content: "three", session: a.sessionId });
    expect(b.status).toBe("complete");
  });
});

describe("the session cache changes nothing a model or host can see", () => {
  it("same requests and events with and without it, through tool calls, notes from outside, pruning and an emergency reset", async () => {
    const script = (request: { messages: Message[] }) => {
      const last = request.messages.at(-1)!;
      if (last.role === "user" && typeof last.content === "string" && last.content.startsWith("add "))
        return { toolCalls: [{ name: "todo_add", args: { item: last.content.slice(4) } }] };
      return { text: `ok after ${request.messages.length} messages: ${"x".repeat(200)}` };
    };
    const run = async (sessionCacheSize: number, compaction: false | "on" = false) => {
      const store = new MemorySessionStore();
      const { runtime, provider, events } = makeRuntime(script, {
        store,
        sessionCacheSize,
        budget: { maxHistoryTokens: 400 },
        emergencyContextLimit: 900,
        ...(compaction === false && { compaction }),
      });
      const first = await runtime.send({ agentId: "todo", content: "add milk" });
      for (let i = 0; i < 14; i++) {
        if (i % 4 === 1)
          await store.append(first.sessionId, [
            {
              id: `note-${i}`,
              frame: null,
              kind: "message",
              message: { role: "user", content: `note ${i}`, origin: "elsewhere", silent: true },
            },
          ]);
        await runtime.send({
          agentId: "todo",
          content: i % 3 === 0 ? `add item ${i}` : `question ${i}`,
          session: first.sessionId,
        });
      }
      const seen = events.map((e) => (e.type === "warning" ? `${e.type}:${e.code}` : e.type));
      // Timings differ from run to run; everything else must not.
      const untimed = JSON.parse(
        JSON.stringify(
          provider.calls.map((c) => c.messages),
          (key, value: unknown) =>
            /^(duration_ms|durationMs|started_at|ended_at|startedAt|endedAt)$/.test(key) ? 0 : value,
        ),
      ) as unknown;
      return { requests: untimed, seen };
    };
    const cached = await run(256);
    const uncached = await run(0);
    expect(cached.seen).toContain("warning:history_pruned");
    expect(cached.seen).toContain("warning:context_reset");
    expect(cached.requests).toEqual(uncached.requests);
    expect(cached.seen).toEqual(uncached.seen);
    // With compaction on (its default trigger: 80% of maxHistoryTokens), the same holds.
    const compacted = await run(256, "on");
    expect(compacted.seen).toContain("context_compacted");
    expect(compacted.requests).toEqual((await run(0, "on")).requests);
  });
});

/** Random session logs: messages (root and frames), turns, approvals, resets. */
const recordsArb = fc
  .array(
    fc.oneof(
      fc.record({
        kind: fc.constant("message" as const),
        frame: fc.constantFrom(null, null, "sub1"),
        role: fc.constantFrom("user", "assistant", "assistant-call", "tool"),
        text: fc.string({ maxLength: 30 }),
      }),
      fc.record({
        kind: fc.constant("turn" as const),
        phase: fc.constantFrom("start" as const, "end" as const),
        run: fc.constantFrom("r1", "r2", "r3"),
        resume: fc.boolean(),
        status: fc.constantFrom("complete" as const, "suspended" as const),
      }),
      fc.record({ kind: fc.constant("approval" as const), req: fc.constantFrom("q1", "q2"), decided: fc.boolean() }),
      fc.record({ kind: fc.constant("reset" as const) }),
    ),
    { maxLength: 40 },
  )
  .map((specs) =>
    specs.map((spec, index): HistoryRecord => {
      const base = { id: `r${index}`, seq: index + 1, at: "2026-01-01T00:00:00.000Z" };
      switch (spec.kind) {
        case "message": {
          const message: Message =
            spec.role === "user"
              ? { role: "user", content: spec.text }
              : spec.role === "assistant"
                ? { role: "assistant", content: [{ type: "text", text: spec.text }] }
                : spec.role === "assistant-call"
                  ? {
                      role: "assistant",
                      content: [{ type: "tool_call", id: `c${index}`, name: "t", args: { text: spec.text } }],
                    }
                  : {
                      role: "tool",
                      content: [{ type: "tool_result", toolCallId: `c${index - 1}`, name: "t", result: spec.text }],
                    };
          return { ...base, frame: spec.frame, kind: "message", message };
        }
        case "turn":
          return {
            ...base,
            frame: null,
            kind: "turn",
            runId: spec.run,
            phase: spec.phase,
            ...(spec.phase === "end" && { status: spec.status }),
            ...(spec.resume && spec.phase === "start" && { resumeOf: "r1" }),
            ...(spec.phase === "start" && { chatContext: { kind: spec.run } }),
          };
        case "approval": {
          const request = {
            requestId: spec.req,
            toolCallId: `call-${spec.req}`,
            name: "t",
            args: {},
            depth: 0,
            parentId: null,
          };
          return {
            ...base,
            frame: null,
            kind: "approval",
            request,
            ...(spec.decided && { decision: "approved" as const }),
          } as HistoryRecord;
        }
        case "reset":
          return { ...base, frame: null, kind: "reset" };
      }
    }),
  );

const comparable = (state: ReturnType<typeof readSessionState>) => ({
  ...state,
  decisions: [...state.decisions],
  approvals: [...state.approvals],
  chatContexts: [...state.chatContexts],
});

describe("SessionStateReader", () => {
  it("reads in pieces (with overlaps) exactly what it reads in one go, and keeps the token sum of the history", () => {
    fc.assert(
      fc.property(recordsArb, fc.array(fc.nat(40), { maxLength: 6 }), (records, cuts) => {
        const whole = readSessionState(records);
        const reader = new SessionStateReader();
        let from = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          reader.apply(records.slice(Math.max(0, from - 2), cut)); // overlapping loads apply once
          from = Math.max(from, cut);
        }
        reader.apply(records.slice(Math.max(0, from - 2)));
        expect(comparable(reader.state())).toEqual(comparable(whole));
        const rootSinceReset = records
          .slice(records.findLastIndex((r) => r.kind === "reset") + 1)
          .filter((r) => r.kind === "message" && r.frame === null);
        const raw = rootSinceReset.map((r) => (r as Extract<HistoryRecord, { kind: "message" }>).message);
        expect(whole.historyTokens).toBe(estimateTokens(raw));
        // Reordering is skipped only when it would change nothing.
        expect(whole.history).toEqual(keepCallsTogether(raw));
      }),
      { numRuns: 300 },
    );
  });

  it("hands out copies: changing a state's arrays and maps does not change the next state", () => {
    const reader = new SessionStateReader();
    reader.apply([
      { id: "a", seq: 1, at: "t", frame: null, kind: "message", message: { role: "user", content: "hi" } },
    ]);
    const first = reader.state();
    first.history.push({ role: "user", content: "extra" });
    first.approvals.clear();
    expect(reader.state().history).toHaveLength(1);
  });
});

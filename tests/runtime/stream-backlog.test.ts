import { describe, expect, it } from "vitest";
import { InvalidArgumentError, type RuntimeEvent } from "@agentry/core";
import { makeRuntime } from "./helpers.js";

/** Resolves when the runtime has emitted the turn's `done` on `runtime.events`. */
function turnDone(events: RuntimeEvent[]): Promise<RuntimeEvent> {
  return new Promise((resolve) => {
    const check = () => {
      const done = events.find((e) => e.type === "done");
      if (done) resolve(done);
      else setTimeout(check, 1);
    };
    check();
  });
}

async function readAll(stream: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const got: RuntimeEvent[] = [];
  for await (const event of stream) got.push(event);
  return got;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `).join("");

describe("runtime.stream(): a reader that falls behind", () => {
  it("gets the events queued so far, a stream_overflow warning, then the end; the turn completes and is stored", async () => {
    const { runtime, store, events } = makeRuntime([{ text: words(200) }], { maxStreamBacklog: 20 });
    const stream = runtime.stream({ agentId: "general", content: "talk" });
    const done = await turnDone(events); // nothing read meanwhile
    const got = await readAll(stream);
    expect(got).toHaveLength(21);
    expect(got.slice(0, 20).map((e) => e.seq)).toEqual(events.slice(0, 20).map((e) => e.seq));
    const last = got.at(-1)!;
    expect(last).toMatchObject({
      type: "warning",
      code: "stream_overflow",
      sessionId: done.sessionId,
      runId: done.runId,
      seq: events[20]!.seq,
    });
    expect(last.type === "warning" && last.message).toContain("maxStreamBacklog");
    expect(got.some((e) => e.type === "done")).toBe(false);
    // The turn went on: all of it is stored, and runtime.events saw every event.
    expect(done.type === "done" && done.result.status).toBe("complete");
    const records = await store.load(done.sessionId);
    expect(records.filter((r) => r.kind === "turn").map((r) => (r as { phase: string }).phase)).toEqual([
      "start",
      "end",
    ]);
    const answer = records.filter((r) => r.kind === "message").at(-1) as { message: { content: { text: string }[] } };
    expect(answer.message.content[0]!.text).toBe(words(200));
  });

  it("holds at most 10,000 events by default", async () => {
    const { runtime, events } = makeRuntime([{ text: words(12_000) }]);
    const stream = runtime.stream({ agentId: "general", content: "talk" });
    await turnDone(events);
    const got = await readAll(stream);
    expect(got).toHaveLength(10_001);
    expect(got.at(-1)).toMatchObject({ type: "warning", code: "stream_overflow" });
  });

  it("a reader that keeps up gets every event and the done", async () => {
    const { runtime } = makeRuntime([{ text: words(200) }], { maxStreamBacklog: 50 });
    const got = await readAll(runtime.stream({ agentId: "general", content: "talk" }));
    expect(got.at(-1)?.type).toBe("done");
    expect(got.some((e) => e.type === "warning")).toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN])("rejects maxStreamBacklog %s", (maxStreamBacklog) => {
    expect(() => makeRuntime([], { maxStreamBacklog })).toThrow(InvalidArgumentError);
  });
});

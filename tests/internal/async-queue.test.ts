import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AsyncQueue } from "../../src/internal/async-queue.js";

type Step = { push: number } | { take: true } | { tick: true };

describe("AsyncQueue", () => {
  it("hands over every pushed value once, in push order, however pushes and pulls interleave", async () => {
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ push: fc.integer() }),
      fc.constant({ take: true as const }),
      fc.constant({ tick: true as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 3000 }), async (steps) => {
        const queue = new AsyncQueue<{ n: number }>();
        const pushed: number[] = [];
        const taken: number[] = [];
        for (const s of steps) {
          if ("push" in s) {
            pushed.push(s.push);
            queue.push({ n: s.push });
          } else if ("take" in s) {
            const value = queue.take();
            if (value) taken.push(value.n);
          } else await Promise.resolve();
          expect(queue.size).toBe(pushed.length - taken.length);
        }
        queue.end();
        for await (const value of queue) taken.push(value.n);
        expect(taken).toEqual(pushed);
      }),
      { numRuns: 200 },
    );
  });

  it("wakes a waiting consumer on push, and iteration ends after end() once drained", async () => {
    const queue = new AsyncQueue<string>();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const value of queue) seen.push(value);
    })();
    queue.push("a");
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(["a"]);
    queue.push("b");
    queue.end();
    queue.push("after the end");
    await reading;
    expect(seen).toEqual(["a", "b"]);
  });

  it("throws the error given to end() after the values queued before it", async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.push(2);
    queue.end(new Error("producer failed"));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const value of queue) seen.push(value);
      })(),
    ).rejects.toThrow("producer failed");
    expect(seen).toEqual([1, 2]);
  });

  it("close() returns what was queued and drops later pushes", () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.push(2);
    expect(queue.take()).toBe(1);
    expect(queue.close()).toEqual([2]);
    queue.push(3);
    expect(queue.take()).toBeUndefined();
    expect(queue.closed).toBe(true);
  });

  it("keeps order while it compacts under a consumer that never quite catches up", () => {
    const queue = new AsyncQueue<number>();
    let next = 0;
    for (let i = 0; i < 20_000; i++) {
      queue.push(i);
      queue.push(i);
      expect(queue.take()).toBe(next++ >> 1);
      if (i % 2 === 0) expect(queue.take()).toBe(next++ >> 1);
    }
    expect(queue.size).toBe(40_000 - next);
  });

  it("onReady calls back synchronously at the next push, with the value already queued, and only once", () => {
    const queue = new AsyncQueue<{ n: number }>();
    const seen: (number | undefined)[] = [];
    queue.onReady(() => seen.push(queue.take()?.n));
    expect(seen).toEqual([]);
    queue.push({ n: 1 });
    expect(seen).toEqual([1]);
    queue.push({ n: 2 });
    expect(seen).toEqual([1]);
    expect(queue.take()?.n).toBe(2);
  });
});

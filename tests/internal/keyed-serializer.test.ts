import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyedSerializer } from "../../src/internal/keyed-serializer.js";

/** Lets every queued microtask and already-due macrotask run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A task whose end the test decides. */
function gate() {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe("KeyedSerializer", () => {
  it("runs each key's tasks one at a time, in call order, with different keys overlapping, whatever the tasks do", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            key: fc.constantFrom("a", "b", "c"),
            fails: fc.boolean(),
            throwsSync: fc.boolean(),
            ticks: fc.integer({ min: 0, max: 3 }),
          }),
          {
            maxLength: 30,
          },
        ),
        async (tasks) => {
          const serializer = new KeyedSerializer();
          const running = new Map<string, number>();
          const started: number[] = [];
          const settled = tasks.map((task, index) =>
            serializer.run(task.key, async () => {
              const now = (running.get(task.key) ?? 0) + 1;
              running.set(task.key, now);
              // Per key serial: never two of one key at once.
              expect(now).toBe(1);
              started.push(index);
              if (task.throwsSync && task.fails) {
                running.set(task.key, 0);
                throw new Error(`task ${index}`);
              }
              for (let i = 0; i < task.ticks; i++) await Promise.resolve();
              running.set(task.key, 0);
              if (task.fails) throw new Error(`task ${index}`);
              return index;
            }),
          );
          const outcomes = await Promise.allSettled(settled);
          // No task lost, each settles as it did (errors do not break the chain).
          outcomes.forEach((outcome, index) => {
            if (tasks[index]!.fails)
              expect(outcome).toEqual({ status: "rejected", reason: new Error(`task ${index}`) });
            else expect(outcome).toEqual({ status: "fulfilled", value: index });
          });
          // Order preserved per key.
          for (const key of ["a", "b", "c"]) {
            const ofKey = started.filter((index) => tasks[index]!.key === key);
            expect(ofKey).toEqual([...ofKey].sort((x, y) => x - y));
          }
          expect(started).toHaveLength(tasks.length);
          // Idle keys hold nothing.
          await settle();
          for (const key of ["a", "b", "c"]) expect(serializer.has(key)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("runs a task of another key while one key waits", async () => {
    const serializer = new KeyedSerializer();
    const first = gate();
    const log: string[] = [];
    const a1 = serializer.run("a", async () => {
      log.push("a1 start");
      await first.promise;
      log.push("a1 end");
    });
    const a2 = serializer.run("a", () => log.push("a2"));
    const b = serializer.run("b", () => log.push("b"));
    await b;
    expect(log).toEqual(["a1 start", "b"]);
    first.open();
    await Promise.all([a1, a2]);
    expect(log).toEqual(["a1 start", "b", "a1 end", "a2"]);
  });

  it("keeps going after a rejected task, and drain waits for tasks queued while it waits", async () => {
    const serializer = new KeyedSerializer();
    const first = gate();
    const failed = serializer.run("a", () => first.promise);
    const log: string[] = [];
    const next = serializer.run("a", () => {
      log.push("next");
      void serializer.run("a", () => log.push("queued meanwhile"));
    });
    const drained = serializer.drain().then(() => log.push("drained"));
    first.fail(new Error("boom"));
    await expect(failed).rejects.toThrow("boom");
    await next;
    await drained;
    expect(log).toEqual(["next", "queued meanwhile", "drained"]);
  });
});

import { describe, expect, it } from "vitest";
import { runLimited } from "../../src/internal/run-limited.js";

/** A task the test settles by hand, recording when it started. */
function gate(started: number[], id: number) {
  let open!: (value: number) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<number>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return {
    task: () => {
      started.push(id);
      return promise;
    },
    open: () => open(id),
    fail: (error: Error) => fail(error),
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("runLimited", () => {
  it("runs at most `limit` tasks at once, starts the next as soon as a slot frees, results in array order", async () => {
    const started: number[] = [];
    const gates = [0, 1, 2, 3, 4].map((id) => gate(started, id));
    const all = runLimited(
      gates.map((g) => g.task),
      2,
    );
    await tick();
    expect(started).toEqual([0, 1]);
    gates[1]!.open();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.open();
    gates[2]!.open();
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[4]!.open();
    gates[3]!.open();
    await expect(all).resolves.toEqual([0, 1, 2, 3, 4]);
  });

  it("rejects with the first failure at once; the tasks not yet started still run", async () => {
    const started: number[] = [];
    const gates = [0, 1, 2].map((id) => gate(started, id));
    const all = runLimited(
      gates.map((g) => g.task),
      1,
    );
    gates[0]!.fail(new Error("boom"));
    await expect(all).rejects.toThrow("boom");
    await tick();
    expect(started).toEqual([0, 1]);
    gates[1]!.open();
    await tick();
    expect(started).toEqual([0, 1, 2]);
  });

  it("turns a synchronous throw into a rejection, and resolves plain values", async () => {
    await expect(runLimited([() => 1, () => Promise.resolve(2)], 4)).resolves.toEqual([1, 2]);
    await expect(
      runLimited(
        [
          () => {
            throw new Error("sync");
          },
        ],
        4,
      ),
    ).rejects.toThrow("sync");
  });

  it("never waits forever: an empty list resolves, a limit below 1 or NaN runs one at a time, Infinity all", async () => {
    await expect(runLimited([], 3)).resolves.toEqual([]);
    await expect(runLimited([() => "a", () => "b"], 0)).resolves.toEqual(["a", "b"]);
    await expect(runLimited([() => "a", () => "b"], Number.NaN)).resolves.toEqual(["a", "b"]);
    const started: number[] = [];
    const gates = [0, 1, 2].map((id) => gate(started, id));
    const all = runLimited(
      gates.map((g) => g.task),
      Number.POSITIVE_INFINITY,
    );
    await tick();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    await expect(all).resolves.toEqual([0, 1, 2]);
  });
});

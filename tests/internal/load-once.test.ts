import { describe, expect, it } from "vitest";
import { loadOnce } from "../../src/internal/load-once.js";

describe("loadOnce", () => {
  it("loads once for every caller, at the same time or later", async () => {
    let loads = 0;
    const get = loadOnce(() => Promise.resolve({ n: ++loads }));
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(loads).toBe(1);
  });

  it("does not keep a failed load: the next call loads again", async () => {
    let loads = 0;
    const get = loadOnce(() => (++loads === 1 ? Promise.reject(new Error("not delivered")) : Promise.resolve(loads)));
    await expect(get()).rejects.toThrow("not delivered");
    await expect(get()).resolves.toBe(2);
    await expect(get()).resolves.toBe(2);
    expect(loads).toBe(2);
  });
});

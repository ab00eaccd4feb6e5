import { describe, expect, it } from "vitest";
import { SignalHub } from "../../src/loop/signal-hub.js";

describe("SignalHub", () => {
  it("wakes every waiter once when the turn aborts, and none it was told to forget", () => {
    const controller = new AbortController();
    const hub = new SignalHub(controller.signal);
    const woken: string[] = [];
    hub.whenAborted(() => woken.push("a"));
    const forgetB = hub.whenAborted(() => woken.push("b"));
    hub.whenAborted(() => woken.push("c"));
    forgetB();
    controller.abort();
    controller.abort();
    expect(woken).toEqual(["a", "c"]);
  });

  it("wakes at once, synchronously, when the turn has aborted already", () => {
    const hub = new SignalHub(AbortSignal.abort());
    let woken = 0;
    const forget = hub.whenAborted(() => woken++);
    expect(woken).toBe(1);
    forget();
    expect(woken).toBe(1);
  });

  it("keeps nothing of settled calls: a long turn does not pile up waiters", () => {
    const controller = new AbortController();
    const hub = new SignalHub(controller.signal);
    let woken = 0;
    for (let i = 0; i < 10_000; i++) hub.whenAborted(() => woken++)();
    const last = hub.whenAborted(() => woken++);
    controller.abort();
    expect(woken).toBe(1);
    last();
  });
});

import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "@agentry/core";
import { makeRuntime } from "./helpers.js";

const warning = (message: string): RuntimeEvent => ({
  type: "warning",
  code: "test",
  message,
  depth: 0,
  parentId: null,
  sessionId: "s1",
  agentId: "general",
  runId: "",
  seq: 0,
  ts: 0,
});

describe("runtime.events: an eventemitter3 EventEmitter whose listeners are isolated", () => {
  it("speaks of the host's functions: listeners() lists them, off() and removeListener() remove them", () => {
    const { runtime } = makeRuntime([{ text: "hi" }]);
    const before = runtime.events.listeners("event");
    const seen: string[] = [];
    const first = (event: RuntimeEvent) => void seen.push(`first:${event.type}`);
    const second = (event: RuntimeEvent) => void seen.push(`second:${event.type}`);
    runtime.events.on("event", first).addListener("event", second);
    expect(runtime.events.listeners("event")).toEqual([...before, first, second]);
    runtime.events.off("event", first);
    runtime.events.emit("event", warning("one"));
    runtime.events.removeListener("event", second);
    runtime.events.emit("event", warning("two"));
    expect(seen).toEqual(["second:warning"]);
    expect(runtime.events.listeners("event")).toEqual(before);
  });

  it("a listener that throws on the host's own emit is reported too, and the ones after it still run", () => {
    const told: string[] = [];
    const { runtime } = makeRuntime([{ text: "hi" }], {
      onError: (error, info) => void told.push(`${info.code}: ${(error as Error).message}`),
    });
    const seen: string[] = [];
    runtime.events.on("event", () => {
      throw new Error("listener bug");
    });
    runtime.events.on("event", (event) => void seen.push(event.type));
    expect(runtime.events.emit("event", warning("one"))).toBe(true);
    expect(seen).toEqual(["warning"]);
    expect(told).toEqual(["listener_failed: listener bug"]);
  });

  it("refuses a listener that is not a function, as eventemitter3 does", () => {
    const { runtime } = makeRuntime([{ text: "hi" }]);
    expect(() => runtime.events.on("event", 42 as never)).toThrow(TypeError);
  });
});

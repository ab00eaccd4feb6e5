import { describe, expect, it } from "vitest";
import { InvalidArgumentError, runUnifiedAgentLoop, type LoopEvent } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { echo, user } from "./helpers.js";

const options = (
  provider = createFakeProvider([{ toolCalls: [{ name: "echo", args: { text: "a" } }] }, { text: "ok" }]),
) => ({
  provider,
  model: "fake",
  systemPrompt: "",
  history: [user("go")],
  tools: [echo],
});

describe("the loop's generator protocol", () => {
  it("serves next() calls made at once in call order, each with the next event, then the result once", async () => {
    const loop = runUnifiedAgentLoop(options());
    const steps = await Promise.all(Array.from({ length: 40 }, () => loop.next()));
    const events = steps.flatMap((s) => (s.done ? [] : [s.value]));
    const ends = steps.filter((s) => s.done);
    expect(events.at(-1)?.type).toBe("done");
    expect(events.map((e) => e.type)).toContain("tool_call_update");
    expect(ends[0]!.value).toMatchObject({ status: "complete", text: "ok" });
    expect(ends.slice(1).every((s) => s.value === undefined)).toBe(true);
  });

  it("holds a level after a message until the consumer asks for the next event", async () => {
    const provider = createFakeProvider([{ toolCalls: [{ name: "echo", args: { text: "a" } }] }, { text: "ok" }]);
    const loop = runUnifiedAgentLoop(options(provider));
    let step = await loop.next();
    while (!step.done && !(step.value.type === "message" && step.value.message.role === "assistant"))
      step = await loop.next();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The tool call must not have started while the consumer holds the assistant message.
    expect(provider.calls).toHaveLength(1);
    const rest: LoopEvent[] = [];
    for (step = await loop.next(); !step.done; step = await loop.next()) rest.push(step.value);
    expect(rest.find((e) => e.type === "tool_call_update")).toMatchObject({ status: "start" });
  });

  it("return() before the first next() runs nothing; return() mid-run stops it; next() is then done", async () => {
    const provider = createFakeProvider([{ text: "never" }]);
    const unstarted = runUnifiedAgentLoop(options(provider));
    expect(await unstarted.return(undefined as never)).toEqual({ done: true, value: undefined });
    expect(await unstarted.next()).toEqual({ done: true, value: undefined });
    expect(provider.calls).toHaveLength(0);

    const loop = runUnifiedAgentLoop(options());
    await loop.next();
    expect(await loop.return(undefined as never)).toEqual({ done: true, value: undefined });
    expect(await loop.next()).toEqual({ done: true, value: undefined });
  });

  it("throw() mid-run rejects with that error and ends the generator", async () => {
    const loop = runUnifiedAgentLoop(options());
    await loop.next();
    const error = new Error("consumer failed");
    await expect(loop.throw(error)).rejects.toBe(error);
    expect(await loop.next()).toEqual({ done: true, value: undefined });
  });

  it("invalid options reject the first next() with InvalidArgumentError, and the generator is done", async () => {
    const loop = runUnifiedAgentLoop({ ...options(), history: "nope" as never });
    await expect(loop.next()).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await loop.next()).toEqual({ done: true, value: undefined });
  });
});

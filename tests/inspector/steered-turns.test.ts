import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@agentry/core";
import { buildTurnTree } from "../../src/inspector/turn-tree.js";
import { turnChains } from "../../src/inspector/turn-records.js";
import { makeRuntime } from "../runtime/helpers.js";

describe("the inspector's turn tree", () => {
  it("shows a steered message where the turn read it, and why a stopped turn stopped", async () => {
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const opened = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const wait = defineTool({
      name: "wait",
      description: "Waits",
      input: z.object({}),
      execute: async (_input, ctx) => {
        started();
        // The first call waits for `release()`, later ones for the stop.
        const first = ++calls === 1;
        await new Promise<void>((resolve) => {
          if (first) void opened.then(resolve);
          ctx.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        return "waited";
      },
    });
    const { runtime, store } = makeRuntime(() => ({ toolCalls: [{ name: "wait", args: {} }] }), { tools: [wait] });
    const first = runtime.send({ agentId: "general", content: "go" });
    await running;
    const [session] = await store.listSessions();
    const steering = runtime.send({
      agentId: "general",
      session: session!.sessionId,
      content: "and eggs",
      ifBusy: "steer",
    });
    await expect.poll(async () => (await store.load(session!.sessionId)).some((r) => r.kind === "steer")).toBe(true);
    release();
    // The turn calls `wait` again after reading the message: stop it there.
    await expect.poll(() => calls).toBe(2);
    await runtime.stopTurn(session!.sessionId, { reason: "user_pressed_stop" });
    await Promise.all([first, steering]);
    const [chain] = turnChains(await store.load(session!.sessionId));
    const tree = buildTurnTree(chain!, 1);
    expect(tree.label).toBe("Turn 1: go");
    expect(tree.children.map((c) => c.kind)).toEqual(["model_call", "steered", "model_call"]);
    expect(tree.children[1]).toMatchObject({ kind: "steered", label: "steered: and eggs" });
    expect(tree).toMatchObject({ status: "aborted", error: "Stopped: user_pressed_stop" });
    await runtime.close();
  });
});

import { describe, expect, it } from "vitest";
import {
  InvalidArgumentError,
  MemorySessionStore,
  SessionNotFoundError,
  type DispatchedTurn,
  type ModelRequest,
} from "@agentry/core";
import { agentOf, lastText, multiRuntime, toolResultOf, type AgentScript } from "./multi-agent-helpers.js";

/** A dispatcher that keeps what it is handed, as it would travel (JSON), or refuses it. */
function collectingDispatcher() {
  const turns: DispatchedTurn[] = [];
  let refuse: Error | undefined;
  return {
    turns,
    refuseWith(error: Error | undefined) {
      refuse = error;
    },
    dispatch: (turn: DispatchedTurn) => {
      if (refuse) return Promise.reject(refuse);
      turns.push(JSON.parse(JSON.stringify(turn)) as DispatchedTurn);
      return Promise.resolve();
    },
  };
}

const userMessages = async (store: MemorySessionStore, sessionId: string) =>
  (await store.load(sessionId)).filter((r) => r.kind === "message" && r.message.role === "user");

describe("turns a runtime starts on its own, handed to a dispatcher", () => {
  it("an async agents_message is handed over (stored before the tool returns) and runs once wherever it runs", async () => {
    const store = new MemorySessionStore();
    const scripts: Record<string, AgentScript> = {
      general: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: "sent" }
          : {
              toolCalls: [
                { name: "agents_message", args: { agentId: "todo", content: "remember milk", mode: "async" } },
              ],
            },
      todo: () => ({ text: "noted milk" }),
    };
    const a = multiRuntime(scripts, { store });
    const b = multiRuntime(scripts, { store });
    const dispatcher = collectingDispatcher();
    a.runtime.setTurnDispatcher(dispatcher.dispatch);

    const first = await a.runtime.send({ agentId: "general", content: "tell todo" });
    expect(first.status).toBe("complete");
    expect(dispatcher.turns).toHaveLength(1);
    const [turn] = dispatcher.turns;
    const started = toolResultOf(a.provider.calls.at(-1)!, "agents_message") as {
      status: string;
      sessionId: string;
      responseId: string;
    };
    expect(started).toMatchObject({ status: "started", sessionId: turn!.sessionId, responseId: turn!.runId });
    expect(turn).toMatchObject({
      agentId: "todo",
      chain: ["general"],
      hops: 0,
      message: { role: "user", content: "remember milk" },
    });
    expect(turn!.runId).toMatch(/^a2a-[0-9a-f]{40}$/);
    // Nothing ran here: the target session only exists.
    expect(a.provider.calls.filter((r) => agentOf(r) === "todo")).toEqual([]);
    expect(await userMessages(store, turn!.sessionId)).toEqual([]);

    const ran = await b.runtime.runDispatchedTurn(turn!);
    expect(ran).toMatchObject({
      status: "complete",
      text: "noted milk",
      runId: turn!.runId,
      sessionId: turn!.sessionId,
    });
    // Run again (a retried job, another process): the stored outcome, nothing appended, no model call.
    const again = await a.runtime.runDispatchedTurn(turn!);
    expect(again).toMatchObject({ status: "complete", text: "noted milk", runId: turn!.runId });
    expect(await userMessages(store, turn!.sessionId)).toHaveLength(1);
    expect(a.provider.calls.filter((r) => agentOf(r) === "todo")).toEqual([]);
    expect(b.provider.calls.filter((r) => agentOf(r) === "todo")).toHaveLength(1);
    await Promise.all([a.runtime.close(), b.runtime.close()]);
  });

  it("a background agent takes its hop and half of what is left of the model calls and background agents; the parent gives them away", async () => {
    const dispatcher = collectingDispatcher();
    const { runtime, provider } = multiRuntime(
      {
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "started" }
            : { toolCalls: [{ name: "start_background_agent", args: { prompt: "dig" } }] },
      },
      { budget: { maxTotalLlmCalls: 8 }, maxBackgroundAgents: 4 },
    );
    runtime.setTurnDispatcher(dispatcher.dispatch);
    const result = await runtime.send({ agentId: "general", content: "go" });
    expect(result.status).toBe("complete");
    // Its own calls only: what it gave away is not its usage.
    expect(result.usage.llmCalls).toBe(2);
    expect(provider.calls).toHaveLength(2);
    expect(dispatcher.turns).toHaveLength(1);
    // 8 - 1 call made = 7 left → 4 go; 4 - 1 agent started = 3 left → 2 go.
    expect(dispatcher.turns[0]).toMatchObject({
      agentId: "general",
      hops: 1,
      maxLlmCalls: 4,
      maxBackgroundAgents: 2,
      chain: [],
    });
    expect(lastText({ messages: [dispatcher.turns[0]!.message] } as ModelRequest)).toContain("dig");
    await runtime.close();
  });

  it("however turns spread over processes, a root turn and everything it hands over make at most its maxTotalLlmCalls model calls", async () => {
    const store = new MemorySessionStore();
    // Every agent, on every call, starts another background agent (until refused), then answers.
    const spread: AgentScript = (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool" && last.content.some((p) => p.isError)) return { text: "done" };
      return { toolCalls: [{ name: "start_background_agent", args: { prompt: "spread" } }] };
    };
    const options = { store, budget: { maxTotalLlmCalls: 10 }, maxBackgroundAgents: 64, maxAgentHops: 64 };
    const runtimes = [multiRuntime({ general: spread }, options), multiRuntime({ general: spread }, options)];
    const dispatcher = collectingDispatcher();
    for (const { runtime } of runtimes) runtime.setTurnDispatcher(dispatcher.dispatch);

    await runtimes[0]!.runtime.send({ agentId: "general", content: "go" });
    // Run what was handed over, alternating between the two runtimes, until nothing is left.
    for (let i = 0; i < dispatcher.turns.length; i++)
      await runtimes[i % 2]!.runtime.runDispatchedTurn(dispatcher.turns[i]!);
    await Promise.all(runtimes.map(({ runtime }) => runtime.close()));

    const calls = runtimes[0]!.provider.calls.length + runtimes[1]!.provider.calls.length;
    // It did spread (background agents of background agents, in both runtimes), and stayed within the root's 10.
    expect(dispatcher.turns.length).toBeGreaterThan(3);
    expect(runtimes[1]!.provider.calls.length).toBeGreaterThan(0);
    expect(calls).toBeLessThanOrEqual(10);
  });

  it("send_agent_message ping-pong spread over two runtimes ends at maxAgentHops", async () => {
    const store = new MemorySessionStore();
    const scripts: Record<string, AgentScript> = {
      general: (request) => {
        const last = request.messages.at(-1)!;
        if (last.role === "tool") return { text: "ok" };
        return lastText(request) === "go"
          ? { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "ping" } }] }
          : { toolCalls: [{ name: "send_agent_message", args: { agentId: "worker", text: "pong" } }] };
      },
      worker: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: "ok" }
          : { toolCalls: [{ name: "send_agent_message", args: { text: "ping" } }] },
    };
    const options = { store, maxAgentHops: 5, budget: { maxTotalLlmCalls: 1000 } };
    const runtimes = [multiRuntime(scripts, options), multiRuntime(scripts, options)];
    const dispatcher = collectingDispatcher();
    for (const { runtime } of runtimes) runtime.setTurnDispatcher(dispatcher.dispatch);
    await runtimes[0]!.runtime.send({ agentId: "general", content: "go" });
    for (let i = 0; i < dispatcher.turns.length && i < 100; i++)
      await runtimes[i % 2]!.runtime.runDispatchedTurn(dispatcher.turns[i]!);
    await Promise.all(runtimes.map(({ runtime }) => runtime.close()));

    expect(dispatcher.turns.map((t) => t.hops)).toEqual([1, 2, 3, 4, 5]);
    const refused = runtimes
      .flatMap(({ provider }) => provider.calls)
      .flatMap((request) => {
        const last = request.messages.at(-1)!;
        return last.role === "tool" ? last.content.filter((p) => p.isError) : [];
      });
    expect(refused).toHaveLength(1);
    expect(JSON.stringify(refused)).toContain("limited to 5 hops; this one would be hop 6");
  });

  it("a hand-off the dispatcher refuses is an error result the model reads, and gives back what it took", async () => {
    const dispatcher = collectingDispatcher();
    dispatcher.refuseWith(new Error("queue down"));
    const { runtime, provider } = multiRuntime(
      {
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "could not" }
            : { toolCalls: [{ name: "send_agent_message", args: { agentId: "todo", text: "hi" } }] },
      },
      { budget: { maxTotalLlmCalls: 2 } },
    );
    runtime.setTurnDispatcher(dispatcher.dispatch);
    const result = await runtime.send({ agentId: "general", content: "go" });
    // Had the share not come back, the second call would be over the budget.
    expect(result).toMatchObject({ status: "complete", text: "could not" });
    expect(JSON.stringify(toolResultOf(provider.calls[1]!, "send_agent_message"))).toContain("queue down");
    // Without a dispatcher, turns run here again.
    runtime.setTurnDispatcher(undefined);
    await runtime.close();
  });

  it("a dispatched turn runs under the share it brought and the hops it carries", async () => {
    const store = new MemorySessionStore();
    const { runtime } = multiRuntime(
      {
        todo: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "never" }
            : { toolCalls: [{ name: "send_agent_message", args: { agentId: "general", text: "psst" } }] },
      },
      { store },
    );
    const dispatcher = collectingDispatcher();
    runtime.setTurnDispatcher(dispatcher.dispatch);
    const session = await store.createSession({ agentId: "todo" });
    const turn: DispatchedTurn = {
      runId: "a2a-test-1",
      sessionId: session.sessionId,
      agentId: "todo",
      message: { role: "user", content: "hello" },
      chain: [],
      hops: 8,
      maxLlmCalls: 1,
      maxBackgroundAgents: 0,
    };
    const result = await runtime.runDispatchedTurn(turn);
    // One model call allowed: the tool ran (refused: hop 9 > 8), then the budget stopped the turn.
    expect(result.status).toBe("budget_exceeded");
    expect(result.usage.llmCalls).toBe(1);
    expect(dispatcher.turns).toEqual([]);
    await runtime.close();
  });

  it("runDispatchedTurn checks what it is given", async () => {
    const store = new MemorySessionStore();
    const { runtime } = multiRuntime({}, { store });
    const session = await store.createSession({ agentId: "todo" });
    const good: DispatchedTurn = {
      runId: "a2a-x",
      sessionId: session.sessionId,
      agentId: "todo",
      message: { role: "user", content: "hi" },
      chain: [],
      hops: 1,
      maxLlmCalls: 1,
      maxBackgroundAgents: 0,
    };
    await expect(runtime.runDispatchedTurn({ ...good, runId: "bad id with spaces" })).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(runtime.runDispatchedTurn({ ...good, maxLlmCalls: -1 })).rejects.toThrow(/maxLlmCalls/);
    await expect(runtime.runDispatchedTurn({ ...good, message: { role: "assistant" } as never })).rejects.toThrow(
      /message/,
    );
    await expect(runtime.runDispatchedTurn({ ...good, sessionId: "nope" })).rejects.toThrow(SessionNotFoundError);
    await expect(runtime.runDispatchedTurn({ ...good, agentId: "general" })).rejects.toThrow(SessionNotFoundError);
    expect(() => runtime.setTurnDispatcher("x" as never)).toThrow(InvalidArgumentError);
    await runtime.close();
  });

  it("a background agent that fails hands its end notice over once, to its parent", async () => {
    const store = new MemorySessionStore();
    const scripts: Record<string, AgentScript> = {
      general: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: "started" }
          : { toolCalls: [{ name: "start_background_agent", args: { prompt: "work" } }] },
    };
    const a = multiRuntime(scripts, { store });
    const b = multiRuntime(
      {
        general: () => {
          throw new Error("model down");
        },
      },
      { store },
    );
    const dispatcher = collectingDispatcher();
    a.runtime.setTurnDispatcher(dispatcher.dispatch);
    b.runtime.setTurnDispatcher(dispatcher.dispatch);
    const root = await a.runtime.send({ agentId: "general", content: "go" });
    expect(dispatcher.turns).toHaveLength(1);
    const background = await b.runtime.runDispatchedTurn(dispatcher.turns[0]!);
    expect(background.status).toBe("error");
    // The notice is handed over (not run in b), addressed to the parent session.
    for (let i = 0; i < 200 && dispatcher.turns.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(dispatcher.turns).toHaveLength(2);
    const notice = dispatcher.turns[1]!;
    expect(notice).toMatchObject({ sessionId: root.sessionId, agentId: "general", hops: 2 });
    expect(JSON.stringify(notice.message)).toContain("failed");
    expect((await store.getSession(background.sessionId))?.attributes?.failureNotified).toBe(true);
    await Promise.all([a.runtime.close(), b.runtime.close()]);
  });
});

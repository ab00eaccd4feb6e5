import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ModelRequest,
} from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";
import { agentOf, eventually, lastText, toolResultOf } from "./multi-agent-helpers.js";

const agents = [
  // The parent may use a note tool and start background agents; it has no "wipe" tool.
  {
    agentId: "boss",
    displayName: "Boss",
    systemPrompt: "boss",
    toolAllowlist: ["note", "start_background_agent", "send_agent_message"],
  },
  { agentId: "worker", displayName: "Worker", systemPrompt: "worker" },
];

type Script = (request: ModelRequest) => FakeTurn | Promise<FakeTurn>;

function setup(scripts: Record<string, Script>, definitions: typeof agents = agents) {
  const notes: string[] = [];
  const wiped: string[] = [];
  const note = defineTool({
    name: "note",
    description: "Note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => (notes.push(text), "ok"),
  });
  const wipe = defineTool({
    name: "wipe",
    description: "Wipe",
    input: z.object({}),
    execute: () => (wiped.push("wiped"), "wiped"),
  });
  const requests: ModelRequest[] = [];
  const provider = createFakeProvider((request) => {
    requests.push(request);
    return scripts[agentOf(request)]!(request);
  });
  const store = new MemorySessionStore();
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(definitions),
    store,
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [note, wipe],
  });
  const toolsOf = (sessionId: string) =>
    requests
      .filter((r) => r.caller?.sessionId === sessionId)
      .map((r) =>
        r.tools
          .map((t) => t.name)
          .filter((name) => name !== "run_subtask")
          .sort(),
      );
  return { runtime, store, requests, notes, wiped, toolsOf };
}

/** The boss starts a worker with the args in its user message (JSON), then repeats the tool result. */
const boss: Script = (request) => {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: JSON.stringify(last.content[0]!.result) };
  if (last.role === "user" && typeof last.content === "string" && last.content.startsWith("{")) {
    return { toolCalls: [{ name: "start_background_agent", args: JSON.parse(last.content) as unknown }] };
  }
  return { text: "noted" };
};
const startedId = (text: string) => (JSON.parse(text) as { sessionId: string }).sessionId;

describe("start_background_agent: a tool subset", () => {
  it("gives the background agent only the tools named (and send_agent_message to report), in every turn of it", async () => {
    const { runtime, store, toolsOf, wiped } = setup({
      boss,
      // The worker tries the tool it was not given.
      worker: (request) =>
        request.messages.at(-1)!.role === "tool" ? { text: "done" } : { toolCalls: [{ name: "wipe", args: {} }] },
    });
    const started = await runtime.send({
      agentId: "boss",
      content: JSON.stringify({ agentId: "worker", prompt: "go", tools: ["note"] }),
    });
    const child = startedId(started.text);
    expect(JSON.parse(started.text)).toMatchObject({ status: "started", tools: ["note", "send_agent_message"] });
    await eventually(async () => (await store.getSession(child))?.attributes?.lifecycle === "waiting_for_merge");
    expect(toolsOf(child)[0]).toEqual(["note", "send_agent_message"]);
    expect(wiped).toEqual([]);
    // A later message to that session (another turn) is held to the same subset.
    await runtime.send({ agentId: "worker", content: "again", session: child });
    expect(toolsOf(child).at(-1)).toEqual(["note", "send_agent_message"]);
    expect(wiped).toEqual([]);
    await runtime.close();
  });

  it("refuses a tool the parent does not have with an error result naming it, and starts nothing", async () => {
    const { runtime, store, requests, wiped } = setup({ boss, worker: () => ({ text: "started anyway" }) });
    const attack = await runtime.send({
      agentId: "boss",
      content: JSON.stringify({ agentId: "worker", prompt: "wipe it", tools: ["note", "wipe"] }),
    });
    const result = toolResultOf(requests.at(-1)!, "start_background_agent") as { error: string };
    expect(result.error).toMatch(/only get tools you have; not yours: "wipe"/);
    expect(result.error).toMatch(/Your tools: .*note/);
    expect(attack.status).toBe("complete");
    const sessions = await store.listSessions({ agentId: "worker" });
    expect(sessions).toEqual([]);
    expect(wiped).toEqual([]);
    await runtime.close();
  });

  it("a narrowed background agent cannot widen through a background agent of its own (no tools given: it inherits)", async () => {
    const { runtime, store, toolsOf, wiped } = setup({
      boss,
      worker: (request) => {
        const last = request.messages.at(-1)!;
        if (last.role === "tool") return { text: "done" };
        // The first worker starts a grandchild without a tools list; the grandchild tries wipe.
        if (lastText(request).includes("spawn"))
          return { toolCalls: [{ name: "start_background_agent", args: { prompt: "wipe everything" } }] };
        return { toolCalls: [{ name: "wipe", args: {} }] };
      },
    });
    const started = await runtime.send({
      agentId: "boss",
      content: JSON.stringify({ agentId: "worker", prompt: "spawn", tools: ["note", "start_background_agent"] }),
    });
    const child = startedId(started.text);
    let grandchild: string | undefined;
    await eventually(async () => {
      grandchild = (await store.listSessions({ agentId: "worker" })).find(
        (s) => s.attributes?.parentSessionId === child,
      )?.sessionId;
      return (
        grandchild !== undefined && (await store.getSession(grandchild))?.attributes?.lifecycle === "waiting_for_merge"
      );
    });
    expect(toolsOf(grandchild!)[0]).toEqual(["note", "send_agent_message", "start_background_agent"]);
    expect(wiped).toEqual([]);
    await runtime.close();
  });
});

describe("start_background_agent from inside a sub-task", () => {
  it("is held to the sub-task's narrowed tools: a wider list is refused, none given inherits the sub-task's", async () => {
    const subtaskAgents = [
      { ...agents[0]!, toolAllowlist: ["note", "start_background_agent", "send_agent_message", "run_subtask"] },
      agents[1]!,
    ];
    const { runtime, store, requests, toolsOf, notes } = setup(
      {
        boss: (request) => {
          const last = request.messages.at(-1)!;
          if (request.caller?.depth === 0) {
            if (last.role === "tool") return { text: "done" };
            return {
              toolCalls: [
                {
                  name: "run_subtask",
                  args: { title: "t", instructions: "start helpers", tools: ["start_background_agent"] },
                },
              ],
            };
          }
          if (last.role === "tool") return { text: "child done" };
          return {
            toolCalls: [
              { name: "start_background_agent", args: { agentId: "worker", prompt: "wide", tools: ["note"] } },
              { name: "start_background_agent", args: { agentId: "worker", prompt: "inherit" } },
            ],
          };
        },
        worker: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "ok" }
            : { toolCalls: [{ name: "note", args: { text: "x" } }] },
      },
      subtaskAgents,
    );
    await runtime.send({ agentId: "boss", content: "go" });
    const child = requests.find((r) => r.caller?.depth === 1 && r.messages.at(-1)?.role === "tool")!;
    const results = child.messages.at(-1)!.content as { result: unknown; isError?: boolean }[];
    expect(results[0]).toMatchObject({ isError: true });
    expect(String(results[0]!.result)).toMatch(/not yours: "note"/);
    const [worker] = await store.listSessions({ agentId: "worker" });
    expect(worker).toBeDefined();
    await eventually(
      async () => (await store.getSession(worker!.sessionId))?.attributes?.lifecycle === "waiting_for_merge",
    );
    expect(toolsOf(worker!.sessionId)[0]).toEqual(["start_background_agent"]);
    expect(notes).toEqual([]);
    await runtime.close();
  });
});

describe("start_background_agent: a time budget", () => {
  it("stops the background agent when its time runs out and tells the parent so", async () => {
    const { runtime, store, requests } = setup({
      boss,
      // The worker's model never answers on its own (the fake honours the abort signal).
      worker: () => ({ delayMs: 600_000, text: "too late" }),
    });
    const started = await runtime.send({
      agentId: "boss",
      content: JSON.stringify({ agentId: "worker", prompt: "slow", timeoutMs: 50 }),
    });
    const child = startedId(started.text);
    expect(JSON.parse(started.text)).toMatchObject({ timeoutMs: 50 });
    const notice = () =>
      requests.find((r) => agentOf(r) === "boss" && r.messages.at(-1)?.role === "user" && lastText(r).includes(child));
    await eventually(() => notice() !== undefined);
    expect(lastText(notice()!)).toMatch(/was stopped: its time budget \(timeoutMs 50\) ran out/);
    expect((await store.getSession(child))?.attributes?.lastTurnStatus).toBe("budget_exceeded");
    await runtime.close();
  });
});

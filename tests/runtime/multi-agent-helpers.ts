import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type AgentRuntimeOptions,
  type ModelRequest,
  type RuntimeEvent,
  type SessionStore,
} from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";

export const multiAgents = [
  {
    agentId: "general",
    displayName: "General",
    systemPrompt: "You are agent general.",
    agentAllowlist: ["todo", "journal", "hidden", "slow", "worker"],
    agentDenylist: ["journal"],
  },
  {
    agentId: "todo",
    displayName: "Todo",
    systemPrompt: "You are agent todo.",
    toolAllowlist: ["todo_*", "agents_*", "send_agent_message"],
    agentAllowlist: ["general", "journal"],
  },
  { agentId: "journal", displayName: "Journal", systemPrompt: "You are agent journal.", agentAllowlist: ["todo"] },
  { agentId: "hidden", displayName: "Hidden", systemPrompt: "You are agent hidden.", uiVisible: false },
  { agentId: "slow", displayName: "Slow", systemPrompt: "You are agent slow." },
  { agentId: "worker", displayName: "Worker", systemPrompt: "You are agent worker." },
  { agentId: "outsider", displayName: "Outsider", systemPrompt: "You are agent outsider." },
];

/** Which agent a request is for: the runtime says so in `request.caller`. */
export const agentOf = (request: ModelRequest) => request.caller?.agentId ?? "?";
export const lastText = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  return last && typeof last.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
};

export type AgentScript = (request: ModelRequest) => FakeTurn | Promise<FakeTurn>;

/** A runtime whose fake model answers per agent. */
export function multiRuntime(
  scripts: Record<string, AgentScript>,
  overrides: Partial<AgentRuntimeOptions> & { store?: SessionStore } = {},
) {
  const added: string[] = [];
  const todoAdd = defineTool({
    name: "todo_add",
    description: "Add a todo",
    input: z.object({ item: z.string() }),
    execute: ({ item }) => (added.push(item), `added ${item}`),
  });
  const secret = defineTool({
    name: "general_secret",
    description: "Only general has this",
    input: z.object({}),
    execute: () => "SECRET",
  });
  const provider = createFakeProvider((request) => {
    const script = scripts[agentOf(request)];
    if (!script) throw new Error(`no script for agent ${agentOf(request)}`);
    return script(request);
  });
  const store = overrides.store ?? new MemorySessionStore();
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(multiAgents),
    store,
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [todoAdd, secret],
    ...overrides,
  });
  const events: RuntimeEvent[] = [];
  runtime.events.on("event", (e) => events.push(e));
  return { runtime, provider, store, events, added };
}

/**
 * Resolves when `check` is true, polling every 5 ms. Gives up after `polls` polls, a count rather
 * than a time, so a loaded machine (slower polls) gets more time, not less.
 */
export async function eventually(check: () => boolean | Promise<boolean>, polls = 2_000): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i >= polls) throw new Error(`condition not met after ${polls} polls`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A promise the test resolves: lets a scripted turn wait for the test instead of a delay. */
export function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** The tool result the caller's model got for its first `name` call. */
export function toolResultOf(request: ModelRequest, name: string): unknown {
  for (const message of request.messages) {
    if (message.role !== "tool") continue;
    const part = message.content.find((p) => p.name === name);
    if (part) return part.isError ? { error: part.result } : part.result;
  }
  return undefined;
}

import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type AgentRuntimeOptions,
  type Message,
  type RuntimeEvent,
  type SessionStore,
} from "@agentry/core";
import { createFakeProvider, type FakeScript } from "@agentry/core/testing";

export const agents = [
  { agentId: "general", displayName: "General Assistant", systemPrompt: "You are a helpful general assistant." },
  // run_subtask is listed: the loop's own tools follow the allowlist too.
  {
    agentId: "todo",
    displayName: "Todo Manager",
    description: "Tracks tasks.",
    toolAllowlist: ["todo_*", "run_subtask"],
  },
];

export function todoTools() {
  const items: string[] = [];
  const add = defineTool({
    name: "todo_add",
    description: "Add a todo item",
    input: z.object({ item: z.string() }),
    execute: ({ item }) => (items.push(item), `added ${item}`),
  });
  const remove = defineTool({
    name: "todo_delete",
    description: "Delete a todo item",
    input: z.object({ item: z.string() }),
    requiresApproval: true,
    execute: ({ item }) => {
      const i = items.indexOf(item);
      if (i >= 0) items.splice(i, 1);
      return `deleted ${item}`;
    },
  });
  return { items, tools: [add, remove] };
}

/** A runtime over a memory store and a fake provider, recording every runtime event. */
export function makeRuntime(
  script: FakeScript,
  overrides: Partial<AgentRuntimeOptions> & { store?: SessionStore } = {},
) {
  const provider = createFakeProvider(script);
  const store = overrides.store ?? new MemorySessionStore();
  const todo = todoTools();
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(agents),
    store,
    providers: { fake: provider },
    defaultModel: "fake-model",
    tools: todo.tools,
    ...overrides,
  });
  const events: RuntimeEvent[] = [];
  runtime.events.on("event", (e) => events.push(e));
  return { runtime, provider, store, events, todo };
}

/** The text of a message: a string content as is, parts as their texts or JSON. */
export function textOf(message: Message | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => ("text" in part ? part.text : JSON.stringify(part))).join("");
}

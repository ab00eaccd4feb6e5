import { describe, expect, it } from "vitest";
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  type UIMessage,
} from "ai";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ModelRequest,
  type ToolResultPart,
} from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";
import { createChatHandler, type RouteTarget } from "@agentry/core/ui";

/** `useChat`'s state, kept in plain arrays (what `@ai-sdk/react` keeps in React state). */
class ArrayChatState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void (this.messages = [...this.messages, message]);
  popMessage = () => void (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index: number, message: UIMessage) =>
    void (this.messages = this.messages.map((m, i) => (i === index ? message : m)));
  snapshot = <T>(value: T): T => structuredClone(value);
}

/** The AI SDK's chat (what `useChat` drives), on the default transport, talking to `handler`. */
class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>) {
    super({ ...init, state: new ArrayChatState() });
  }
}

/** The model: a tool per request word, then it says what it read. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") {
    const part = last.content[0] as ToolResultPart;
    return { text: `read ${part.isError ? "error " : ""}${JSON.stringify(part.result)}` };
  }
  const text = typeof last.content === "string" ? last.content : "";
  if (text.includes("delete")) return { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] };
  if (text.includes("where")) return { toolCalls: [{ name: "geolocate", args: { precise: true } }] };
  if (text.includes("share")) return { toolCalls: [{ name: "share_screen", args: {} }] };
  if (text.includes("which")) {
    const question = { question: "Which list?", severity: "minor", options: [{ label: "Chores", value: "chores" }] };
    return { toolCalls: [{ name: "ask_user", args: question }] };
  }
  return { text: `Hello, you said ${text}` };
}

function setup(route?: (request: Request) => RouteTarget) {
  const deleted: string[] = [];
  const store = new MemorySessionStore();
  const provider = createFakeProvider(script);
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "assistant", displayName: "Assistant", role: "actor" }]),
    store,
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [
      defineTool({
        name: "todo_delete",
        description: "Delete a todo",
        input: z.object({ item: z.string() }),
        requiresApproval: true,
        execute: ({ item }) => (deleted.push(item), `deleted ${item}`),
      }),
      defineTool({
        name: "share_screen",
        description: "Share the screen",
        input: z.object({}),
        requiresApproval: true,
      }),
      defineTool({
        name: "geolocate",
        description: "Where the user is (runs in the browser)",
        input: z.object({ precise: z.boolean() }),
        output: z.object({ city: z.string() }),
      }),
    ],
  });
  const handler = createChatHandler({
    runtime,
    route: route ?? ((request) => ({ agentId: "assistant", scope: request.headers.get("x-user") ?? "alice" })),
  });
  const requests: { status: number; body: unknown }[] = [];
  const fetch = async (url: string | URL | globalThis.Request, init?: RequestInit) => {
    const response = await handler(new Request(url, init));
    requests.push({ status: response.status, body: JSON.parse(init?.body as string) });
    return response;
  };
  const chat = (init: Omit<ChatInit<UIMessage>, "transport"> = {}) =>
    new TestChat({ ...init, transport: new DefaultChatTransport({ api: "http://app.test/api/chat", fetch }) });
  return { runtime, store, handler, deleted, chat, requests, provider };
}

/** Resolves at the chat's next finished response. */
const finished = (onFinish: { next?: () => void }) => new Promise<void>((resolve) => (onFinish.next = resolve));

const toolPart = (message: UIMessage | undefined) =>
  message?.parts.find((p) => p.type.startsWith("tool-") || p.type === "dynamic-tool") as
    { type: string; toolCallId: string; state: string; output?: unknown; approval?: { id: string } } | undefined;
const texts = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

describe("createChatHandler driven by the AI SDK's Chat", () => {
  it("a client-side tool that needs an approval: onToolCall sees it at the approval and again once approved, then runs it", async () => {
    const { chat, runtime } = setup();
    const seen: (boolean | undefined)[] = [];
    const onFinish: { next?: () => void } = {};
    const client: TestChat = chat({
      id: "chat-6",
      sendAutomaticallyWhen: ({ messages }) =>
        lastAssistantMessageIsCompleteWithApprovalResponses({ messages }) ||
        lastAssistantMessageIsCompleteWithToolCalls({ messages }),
      onFinish: () => onFinish.next?.(),
      onToolCall: ({ toolCall }) => {
        if (toolCall.dynamic) return;
        // Run it once its part's approval is given (the chat's messages are up to date here).
        const part = toolPart(client.lastMessage) as { approval?: { approved?: boolean } } | undefined;
        seen.push(part?.approval?.approved);
        if (part?.approval?.approved === true)
          void client.addToolOutput({
            tool: "share_screen" as never,
            toolCallId: toolCall.toolCallId,
            output: "shared",
          });
      },
    });
    await client.sendMessage({ text: "share my screen" });
    const part = toolPart(client.lastMessage);
    expect(part).toMatchObject({ type: "tool-share_screen", state: "approval-requested" });
    expect(await runtime.pendingToolCalls()).toEqual([]);
    const done = finished(onFinish);
    await client.addToolApprovalResponse({ id: part!.approval!.id, approved: true });
    await done;
    // The resubmit after the output is awaited by the chat's own request chain.
    for (let i = 0; i < 100 && !texts(client.lastMessage).startsWith("read"); i++) await finished(onFinish);
    expect(seen).toEqual([undefined, true]);
    expect(texts(client.lastMessage)).toBe('read "shared"');
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a message: streamed as one assistant message, in a session named by the chat id, in the route's scope", async () => {
    const { chat, store } = setup();
    const client = chat({ id: "chat-1" });
    await client.sendMessage({ text: "hi" });
    expect(client.status).toBe("ready");
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(texts(client.lastMessage)).toBe("Hello, you said hi");
    expect(await store.getSession("chat-1")).toMatchObject({ agentId: "assistant", scope: "alice" });
  });

  it("regenerate: the last answer leaves the model's context and the user message runs again, under its UI id", async () => {
    const { chat, provider, store } = setup();
    const client = chat({ id: "chat-r" });
    await client.sendMessage({ text: "one" });
    await client.sendMessage({ text: "two" });
    const [first, , second] = client.messages;
    await client.regenerate();
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(texts(client.lastMessage)).toBe("Hello, you said two");
    // The model saw "one", its answer, and "two" once: not the answer being replaced.
    const request = provider.calls.at(-1)!;
    expect(request.messages.map((m) => [m.role, typeof m.content === "string" ? m.content : "…"])).toEqual([
      ["user", "one"],
      ["assistant", "…"],
      ["user", "two"],
    ]);
    // The stored user messages carry the UI's ids; a rewind record says what happened.
    const records = await store.load("chat-r");
    const ids = records.flatMap((r) => (r.kind === "message" && r.message.role === "user" ? [r.messageId] : []));
    expect(ids).toEqual([first!.id, second!.id, second!.id]);
    expect(records.filter((r) => r.kind === "rewind")).toMatchObject([{ cause: "edit", before: second!.id }]);

    // Regenerating an earlier answer: the client drops everything after the first user message.
    await client.regenerate({ messageId: client.messages[1]!.id });
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(provider.calls.at(-1)!.messages.map((m) => m.role)).toEqual(["user"]);
  });

  it("an edit: sendMessage({ text, messageId }) replaces that message in the model's context, keeping its id", async () => {
    const { chat, provider } = setup();
    const client = chat({ id: "chat-e" });
    await client.sendMessage({ text: "hi" });
    await client.sendMessage({ text: "tell me more" });
    const firstId = client.messages[0]!.id;
    await client.sendMessage({ text: "hello there", messageId: firstId });
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(client.messages[0]!.id).toBe(firstId);
    expect(texts(client.lastMessage)).toBe("Hello, you said hello there");
    expect(provider.calls.at(-1)!.messages.map((m) => (typeof m.content === "string" ? m.content : "…"))).toEqual([
      "hello there",
    ]);
  });

  it("an approval: addToolApprovalResponse resubmits, the handler resolves it, the tool runs once and the same message goes on", async () => {
    const { chat, deleted, requests } = setup();
    const onFinish: { next?: () => void } = {};
    const client = chat({
      id: "chat-2",
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onFinish: () => onFinish.next?.(),
    });
    await client.sendMessage({ text: "delete milk" });
    const part = toolPart(client.lastMessage);
    expect(part).toMatchObject({ state: "approval-requested" });
    const done = finished(onFinish);
    await client.addToolApprovalResponse({ id: part!.approval!.id, approved: true });
    await done;
    expect(deleted).toEqual(["milk"]);
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(toolPart(client.lastMessage)).toMatchObject({ state: "output-available", output: "deleted milk" });
    expect(texts(client.lastMessage)).toBe('read "deleted milk"');
    expect(requests.map((r) => r.status)).toEqual([200, 200]);
  });

  it("a question: addToolOutput on the ask_user call answers it", async () => {
    const { chat } = setup();
    const onFinish: { next?: () => void } = {};
    const client = chat({
      id: "chat-3",
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
      onFinish: () => onFinish.next?.(),
    });
    await client.sendMessage({ text: "which list?" });
    const part = toolPart(client.lastMessage);
    expect(part).toMatchObject({ type: "dynamic-tool", state: "input-available" });
    expect(client.lastMessage!.parts.some((p) => p.type === "data-agentry-question")).toBe(true);
    const done = finished(onFinish);
    await client.addToolOutput({
      tool: "ask_user" as never,
      toolCallId: part!.toolCallId,
      output: { value: "chores" },
    });
    await done;
    expect(texts(client.lastMessage)).toBe('read {"answer":"chores","label":"Chores"}');
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a client-side tool: onToolCall runs it (a static part), addToolOutput sends its result, the turn resumes", async () => {
    const { chat, runtime } = setup();
    const calls: unknown[] = [];
    const client: TestChat = chat({
      id: "chat-4",
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
      onToolCall: ({ toolCall }) => {
        // As the AI SDK's docs write it: dynamic calls are the server's.
        if (toolCall.dynamic) return;
        calls.push(toolCall.input);
        void client.addToolOutput({
          tool: toolCall.toolName as never,
          toolCallId: toolCall.toolCallId,
          output: { city: "Lyon" },
        });
      },
    });
    await client.sendMessage({ text: "where am I?" });
    expect(calls).toEqual([{ precise: true }]);
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(toolPart(client.lastMessage)).toMatchObject({
      type: "tool-geolocate",
      state: "output-available",
      output: { city: "Lyon" },
    });
    expect(
      client.lastMessage!.parts.filter((p) => p.type.startsWith("tool-") || p.type === "dynamic-tool"),
    ).toHaveLength(1);
    expect(texts(client.lastMessage)).toBe('read {"city":"Lyon"}');
    expect(await runtime.pendingToolCalls()).toEqual([]);
  });

  it("a client-side tool that fails in the browser: output-error reaches the model as an error result", async () => {
    const { chat } = setup();
    const client: TestChat = chat({
      id: "chat-5",
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
      onToolCall: ({ toolCall }) =>
        void client.addToolOutput({
          state: "output-error",
          tool: toolCall.toolName as never,
          toolCallId: toolCall.toolCallId,
          errorText: "User denied Geolocation",
        }),
    });
    await client.sendMessage({ text: "where am I?" });
    expect(texts(client.lastMessage)).toBe('read error "User denied Geolocation"');
  });
});

/** A body as `DefaultChatTransport` sends it. */
const body = (fields: Record<string, unknown>) =>
  JSON.stringify({ id: "chat-h", trigger: "submit-message", messageId: undefined, ...fields });
const post = (text: string, headers: Record<string, string> = {}) =>
  new Request("http://app.test/api/chat", {
    method: "POST",
    body: text,
    headers: { "content-type": "application/json", ...headers },
  });
const userMessage = (text: string, id = "u1") => ({ id, role: "user", parts: [{ type: "text", text }] });

describe("createChatHandler with hostile requests", () => {
  it("refuses what is not a chat request before anything runs: 405, 413, 400", async () => {
    const { handler, store } = setup();
    expect((await handler(new Request("http://app.test/api/chat"))).status).toBe(405);
    expect((await handler(post("x".repeat(5 * 1024 * 1024)))).status).toBe(413);
    expect((await handler(post("{not json"))).status).toBe(400);
    for (const shape of [
      [],
      { messages: [] },
      { messages: "hi" },
      { messages: [{ role: "user" }] },
      { messages: [userMessage("hi")], trigger: "x" },
    ])
      expect((await handler(post(JSON.stringify(shape)))).status).toBe(400);
    // No text to send.
    expect((await handler(post(body({ messages: [{ id: "u1", role: "user", parts: [] }] })))).status).toBe(400);
    expect(await store.listSessions()).toEqual([]);
  });

  it("answers 404 for a continuation nothing waits on, and for another tenant's chat", async () => {
    const { handler, runtime } = setup();
    const first = await handler(post(body({ messages: [userMessage("delete milk")] })));
    await first.text();
    const [pending] = await runtime.pendingApprovals();
    const assistant = {
      id: "a1",
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "todo_delete",
          toolCallId: "x",
          state: "approval-responded",
          input: {},
          approval: { id: pending!.requestId, approved: true },
        },
      ],
    };
    // Bob sends Alice's chat id with Alice's approval id: not found, nothing decided.
    const bob = await handler(post(body({ messages: [userMessage("delete milk"), assistant] }), { "x-user": "bob" }));
    expect(bob.status).toBe(404);
    expect(await runtime.pendingApprovals()).toHaveLength(1);
    // An approval id nothing of this chat waits on.
    const unknown = { ...assistant, parts: [{ ...assistant.parts[0], approval: { id: "nope", approved: true } }] };
    expect((await handler(post(body({ messages: [userMessage("delete milk"), unknown] })))).status).toBe(404);
    // Decided once; the same request again finds nothing pending.
    const decided = await handler(post(body({ messages: [userMessage("delete milk"), assistant] })));
    expect(decided.status).toBe(200);
    await decided.text();
    expect((await handler(post(body({ messages: [userMessage("delete milk"), assistant] })))).status).toBe(404);
  });

  it("refuses a client result its tool's output schema does not take (400), and stores nothing", async () => {
    const { handler, runtime } = setup();
    await (await handler(post(body({ messages: [userMessage("where am I?")] })))).text();
    const [call] = await runtime.pendingToolCalls();
    const assistant = {
      id: "a1",
      role: "assistant",
      parts: [
        {
          type: "tool-geolocate",
          toolCallId: call!.toolCallId,
          state: "output-available",
          input: {},
          output: { town: "?" },
        },
      ],
    };
    const response = await handler(post(body({ messages: [userMessage("where am I?"), assistant] })));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "InvalidArgumentError" });
    expect(await runtime.pendingToolCalls()).toHaveLength(1);
  });

  it("hands the route a thrown Response as the answer (the host's 401)", async () => {
    const { handler } = setup(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the handler's route may throw
      throw new Response("who are you?", { status: 401 });
    });
    expect((await handler(post(body({ messages: [userMessage("hi")] })))).status).toBe(401);
  });
});

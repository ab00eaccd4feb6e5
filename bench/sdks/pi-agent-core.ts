/**
 * pi-agent-core (`@mariozechner/pi-agent-core` on `@mariozechner/pi-ai`): `agentLoop()` (every event
 * consumed) and `Agent#prompt()` (result only) with a TypeBox `AgentTool`, on a custom `streamFn`
 * (the SDK's own extension point for other backends) that returns an `AssistantMessageEventStream`
 * whose events are produced on demand as the loop pulls them.
 */
import { Agent, agentLoop, type AgentContext, type AgentLoopConfig, type AgentMessage, type AgentTool, type StreamFn } from "@mariozechner/pi-agent-core";
import {
  EventStream,
  Type,
  type AssistantMessage,
  type AssistantMessageEvent,
  type Model,
  type ToolCall,
  type Usage,
} from "@mariozechner/pi-ai";
import {
  check,
  DELTA_TEXT,
  ECHO_STEPS,
  FANOUT_CALLS,
  FANOUT_SLEEP_MS,
  FINAL_TEXT,
  MESSAGES_PER_SESSION,
  sessionText,
  sleep,
  STREAM_DELTAS,
  type BenchSdk,
  type EchoMode,
} from "../lib/contract.js";

const model: Model<"bench"> = {
  id: "bench-1",
  name: "Bench",
  api: "bench",
  provider: "bench",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128_000,
  maxTokens: 4_096,
};
const usage = (): Usage => ({
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

type Turn = { calls: ToolCall[] } | { text: string; deltas: number };

/** An assistant message of the fake model, as pi-ai's providers make them. */
const assistantMessage = (content: AssistantMessage["content"]): AssistantMessage => ({
  role: "assistant",
  content,
  api: model.api,
  provider: model.provider,
  model: model.id,
  usage: usage(),
  stopReason: "stop",
  timestamp: Date.now(),
});

/**
 * An `AssistantMessageEventStream` (pi-ai's `EventStream` of assistant events, completed by `done`
 * or `error`) whose events are generated as the consumer pulls them instead of being pushed into
 * its queue up front. Like pi-ai's providers, every event carries the same `partial` message,
 * updated in place.
 */
class LazyAssistantStream extends EventStream<AssistantMessageEvent, AssistantMessage> {
  constructor(private readonly turn: Turn) {
    super(
      (event) => event.type === "done" || event.type === "error",
      (event) => (event.type === "done" ? event.message : event.type === "error" ? event.error : (undefined as never)),
    );
  }
  override async *[Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    const turn = this.turn;
    const output = assistantMessage([]);
    yield { type: "start", partial: output };
    if ("calls" in turn) {
      output.stopReason = "toolUse";
      for (const call of turn.calls) {
        const contentIndex = output.content.length;
        output.content.push(call);
        yield { type: "toolcall_start", contentIndex, partial: output };
        yield { type: "toolcall_delta", contentIndex, delta: JSON.stringify(call.arguments), partial: output };
        yield { type: "toolcall_end", contentIndex, toolCall: call, partial: output };
      }
    } else {
      const block = { type: "text" as const, text: "" };
      output.content.push(block);
      yield { type: "text_start", contentIndex: 0, partial: output };
      for (let i = 0; i < turn.deltas; i++) {
        block.text += turn.text;
        yield { type: "text_delta", contentIndex: 0, delta: turn.text, partial: output };
      }
      yield { type: "text_end", contentIndex: 0, content: block.text, partial: output };
    }
    this.end(output);
    yield { type: "done", reason: output.stopReason as "stop" | "toolUse", message: output };
  }
}

/** A `streamFn` that plays `turn(callIndex)`; records nothing. */
function scriptedStreamFn(turn: (callIndex: number) => Turn): StreamFn {
  let callIndex = 0;
  return () => new LazyAssistantStream(turn(callIndex++));
}

const echoTurn = (callIndex: number): Turn =>
  callIndex < ECHO_STEPS - 1
    ? { calls: [{ type: "toolCall", id: `call_${callIndex}`, name: "echo", arguments: { text: `ping ${callIndex}` } }] }
    : { text: FINAL_TEXT, deltas: 1 };
const fanOutTurn = (callIndex: number): Turn =>
  callIndex === 0
    ? { calls: Array.from({ length: FANOUT_CALLS }, (_, i): ToolCall => ({ type: "toolCall", id: `call_${i}`, name: "nap", arguments: { i } })) }
    : { text: FINAL_TEXT, deltas: 1 };

let echoCalls = 0;
const echoParameters = Type.Object({ text: Type.String() });
const echo: AgentTool<typeof echoParameters> = {
  name: "echo",
  label: "Echo",
  description: "Echo the text back",
  parameters: echoParameters,
  execute: async (_toolCallId, params) => {
    echoCalls++;
    return { content: [{ type: "text", text: params.text }], details: undefined };
  },
};
const nap: AgentTool = {
  name: "nap",
  label: "Nap",
  description: "Sleep, then answer",
  parameters: Type.Object({ i: Type.Number() }),
  execute: async () => {
    await sleep(FANOUT_SLEEP_MS);
    return { content: [{ type: "text", text: "rested" }], details: undefined };
  },
};
const tools: AgentTool<any>[] = [echo, nap];
const systemPrompt = "You are a benchmark.";
const convertToLlm: AgentLoopConfig["convertToLlm"] = (messages) =>
  messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult");

function lastText(messages: AgentMessage[]): string {
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return "";
  return last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Runs the low-level loop, consuming every event; returns the event counts by type. */
async function runLoop(turn: (callIndex: number) => Turn): Promise<{ counts: Map<string, number>; messages: AgentMessage[] }> {
  const context: AgentContext = { systemPrompt, messages: [], tools };
  const config: AgentLoopConfig = { model, convertToLlm };
  const stream = agentLoop([{ role: "user", content: "go", timestamp: Date.now() }], context, config, undefined, scriptedStreamFn(turn));
  const counts = new Map<string, number>();
  for await (const event of stream) {
    const key = event.type === "message_update" ? event.assistantMessageEvent.type : event.type;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return { counts, messages: await stream.result() };
}

const sdk: BenchSdk = {
  name: "pi-agent-core",
  coldImport: "@mariozechner/pi-agent-core",
  async echoLoop(mode: EchoMode) {
    echoCalls = 0;
    if (mode === "events") {
      const { counts, messages } = await runLoop(echoTurn);
      check(counts.get("tool_execution_end") === ECHO_STEPS - 1, `pi saw ${counts.get("tool_execution_end")} tool ends`);
      check(lastText(messages) === FINAL_TEXT, "pi final text");
    } else {
      const agent = new Agent({ initialState: { systemPrompt, model, tools }, streamFn: scriptedStreamFn(echoTurn) });
      await agent.prompt("go");
      check(lastText(agent.state.messages) === FINAL_TEXT, `pi Agent final text: ${agent.state.errorMessage}`);
    }
    check(echoCalls === ECHO_STEPS - 1, `pi ran echo ${echoCalls} times`);
  },
  async fanOut() {
    const { counts, messages } = await runLoop(fanOutTurn);
    check(counts.get("tool_execution_end") === FANOUT_CALLS && lastText(messages) === FINAL_TEXT, "pi fan-out");
  },
  async streamDeltas() {
    const { counts } = await runLoop(() => ({ text: DELTA_TEXT, deltas: STREAM_DELTAS }));
    check(counts.get("text_delta") === STREAM_DELTAS, `pi saw ${counts.get("text_delta")} deltas`);
  },
  async buildSessions(sessions: number) {
    // pi-agent-core's session is the stateful `Agent`, which owns its transcript.
    const store: Agent[] = [];
    for (let s = 0; s < sessions; s++) {
      const messages: AgentMessage[] = [];
      for (let i = 0; i < MESSAGES_PER_SESSION; i++) {
        const text = sessionText(s, i);
        messages.push(
          i % 2 === 0
            ? { role: "user", content: [{ type: "text", text }], timestamp: Date.now() }
            : assistantMessage([{ type: "text", text }]),
        );
      }
      store.push(new Agent({ initialState: { systemPrompt, model, tools, messages } }));
    }
    return store;
  },
};
export default sdk;

/**
 * OpenAI Agents SDK (`@openai/agents`): an `Agent` with a zod `tool()`, run by `run()` (streamed
 * and not), on a custom `Model` (the SDK's own extension point for other providers) that builds
 * each response on demand. Tracing is disabled: it would try to export spans to the network.
 */
import {
  Agent,
  assistant,
  MemorySession,
  run,
  setTracingDisabled,
  tool,
  Usage,
  user,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from "@openai/agents";
import { z } from "zod";
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

setTracingDisabled(true);

type Turn = AgentOutputItem[] | "stream";
const usage = { requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 };

function functionCall(callIndex: number, name: string, args: unknown): AgentOutputItem {
  return { type: "function_call", id: `fc_${callIndex}`, callId: `call_${callIndex}`, name, arguments: JSON.stringify(args), status: "completed" };
}
function message(text: string): AgentOutputItem {
  return { type: "message", id: "msg_final", role: "assistant", status: "completed", content: [{ type: "output_text", text }] };
}

/** A `Model` that plays `turn(callIndex)`; swap the script with `reset()`. Records nothing. */
class ScriptedModel implements Model {
  private callIndex = 0;
  constructor(private turn: (callIndex: number) => Turn) {}
  reset(turn: (callIndex: number) => Turn): this {
    this.turn = turn;
    this.callIndex = 0;
    return this;
  }
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const output = this.turn(this.callIndex++);
    if (output === "stream") throw new Error("not scripted");
    return { usage: new Usage(usage), output, responseId: `resp_${this.callIndex}` };
  }
  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    const turn = this.turn(this.callIndex++);
    yield { type: "response_started" };
    let output: AgentOutputItem[];
    if (turn === "stream") {
      for (let i = 0; i < STREAM_DELTAS; i++) yield { type: "output_text_delta", delta: DELTA_TEXT };
      output = [message(DELTA_TEXT.repeat(STREAM_DELTAS))];
    } else {
      output = turn;
      for (const item of output) {
        if (item.type !== "message" || item.role !== "assistant") continue;
        for (const part of item.content) if (part.type === "output_text") yield { type: "output_text_delta", delta: part.text };
      }
    }
    yield { type: "response_done", response: { id: `resp_${this.callIndex}`, usage, output } as never };
  }
}

const echoTurn = (callIndex: number): Turn =>
  callIndex < ECHO_STEPS - 1 ? [functionCall(callIndex, "echo", { text: `ping ${callIndex}` })] : [message(FINAL_TEXT)];
const fanOutTurn = (callIndex: number): Turn =>
  callIndex === 0 ? Array.from({ length: FANOUT_CALLS }, (_, i) => functionCall(i, "nap", { i })) : [message(FINAL_TEXT)];

let echoCalls = 0;
const echo = tool({
  name: "echo",
  description: "Echo the text back",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => {
    echoCalls++;
    return text;
  },
});
const nap = tool({
  name: "nap",
  description: "Sleep, then answer",
  parameters: z.object({ i: z.number() }),
  execute: async () => {
    await sleep(FANOUT_SLEEP_MS);
    return "rested";
  },
});
const model = new ScriptedModel(echoTurn);
const agent = new Agent({ name: "bench", instructions: "You are a benchmark.", model, tools: [echo, nap] });
const maxTurns = ECHO_STEPS + 10;

const sdk: BenchSdk = {
  name: "OpenAI Agents",
  coldImport: "@openai/agents",
  async echoLoop(mode: EchoMode) {
    echoCalls = 0;
    model.reset(echoTurn);
    if (mode === "events") {
      const result = await run(agent, "go", { stream: true, maxTurns });
      let toolOutputs = 0;
      for await (const event of result) {
        if (event.type === "run_item_stream_event" && event.name === "tool_output") toolOutputs++;
      }
      await result.completed;
      check(toolOutputs === ECHO_STEPS - 1 && result.finalOutput === FINAL_TEXT, `openai-agents saw ${toolOutputs} tool outputs`);
    } else {
      const result = await run(agent, "go", { maxTurns });
      check(result.finalOutput === FINAL_TEXT, "openai-agents final output");
    }
    check(echoCalls === ECHO_STEPS - 1, `openai-agents ran echo ${echoCalls} times`);
  },
  async fanOut() {
    model.reset(fanOutTurn);
    const result = await run(agent, "go", { stream: true, maxTurns });
    let toolOutputs = 0;
    for await (const event of result) {
      if (event.type === "run_item_stream_event" && event.name === "tool_output") toolOutputs++;
    }
    await result.completed;
    check(toolOutputs === FANOUT_CALLS && result.finalOutput === FINAL_TEXT, `openai-agents fan-out: ${toolOutputs}`);
  },
  async streamDeltas() {
    model.reset(() => "stream");
    const result = await run(agent, "go", { stream: true, maxTurns });
    let deltas = 0;
    for await (const event of result) {
      if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta") deltas++;
    }
    await result.completed;
    check(deltas === STREAM_DELTAS, `openai-agents saw ${deltas} deltas`);
  },
  async buildSessions(sessions: number) {
    const store: MemorySession[] = [];
    for (let s = 0; s < sessions; s++) {
      const session = new MemorySession({ sessionId: `session-${s}` });
      for (let i = 0; i < MESSAGES_PER_SESSION; i++) {
        await session.addItems([i % 2 === 0 ? user(sessionText(s, i)) : assistant(sessionText(s, i))]);
      }
      store.push(session);
    }
    return store;
  },
};
export default sdk;

/**
 * The floor: a hand-rolled minimal agent loop (plain async generator, plain objects, no
 * validation, no budgets). Every other column is a ratio to this one.
 */
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

interface ToolCall { id: string; name: string; args: unknown }
type Message =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: unknown };
type ModelEvent = { type: "text"; text: string } | ({ type: "tool_call" } & ToolCall) | { type: "finish" };
type Model = (messages: readonly Message[]) => AsyncIterable<ModelEvent>;
type Tools = Record<string, (args: any) => unknown>;
type LoopEvent =
  | { type: "text"; text: string }
  | { type: "message"; message: Message }
  | { type: "tool_start"; id: string; name: string; args: unknown }
  | { type: "tool_end"; id: string; name: string; result: unknown };
interface LoopResult { text: string; messages: Message[] }

async function* runLoop(model: Model, tools: Tools, history: Message[]): AsyncGenerator<LoopEvent, LoopResult> {
  const messages = history.slice();
  for (;;) {
    let text = "";
    const calls: ToolCall[] = [];
    for await (const event of model(messages)) {
      if (event.type === "text") {
        text += event.text;
        yield { type: "text", text: event.text };
      } else if (event.type === "tool_call") {
        calls.push({ id: event.id, name: event.name, args: event.args });
      }
    }
    const assistant: Message = { role: "assistant", content: text, toolCalls: calls };
    messages.push(assistant);
    yield { type: "message", message: assistant };
    if (calls.length === 0) return { text, messages };
    for (const call of calls) yield { type: "tool_start", id: call.id, name: call.name, args: call.args };
    const results = await Promise.all(calls.map((call) => tools[call.name]!(call.args)));
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      messages.push({ role: "tool", toolCallId: call.id, content: results[i] });
      yield { type: "tool_end", id: call.id, name: call.name, result: results[i] };
    }
  }
}

/** The same loop without events, for the "result only" row. */
async function runLoopResult(model: Model, tools: Tools, history: Message[]): Promise<LoopResult> {
  const messages = history.slice();
  for (;;) {
    let text = "";
    const calls: ToolCall[] = [];
    for await (const event of model(messages)) {
      if (event.type === "text") text += event.text;
      else if (event.type === "tool_call") calls.push({ id: event.id, name: event.name, args: event.args });
    }
    messages.push({ role: "assistant", content: text, toolCalls: calls });
    if (calls.length === 0) return { text, messages };
    const results = await Promise.all(calls.map((call) => tools[call.name]!(call.args)));
    for (let i = 0; i < calls.length; i++) messages.push({ role: "tool", toolCallId: calls[i]!.id, content: results[i] });
  }
}

/** A model that plays `turn(callIndex)` on demand. */
function scriptedModel(turn: (callIndex: number) => AsyncIterable<ModelEvent>): Model {
  let callIndex = 0;
  return () => turn(callIndex++);
}

async function* echoTurn(callIndex: number): AsyncGenerator<ModelEvent> {
  if (callIndex < ECHO_STEPS - 1) {
    yield { type: "tool_call", id: `call_${callIndex}`, name: "echo", args: { text: `ping ${callIndex}` } };
  } else {
    yield { type: "text", text: FINAL_TEXT };
  }
  yield { type: "finish" };
}

async function* fanOutTurn(callIndex: number): AsyncGenerator<ModelEvent> {
  if (callIndex === 0) {
    for (let i = 0; i < FANOUT_CALLS; i++) yield { type: "tool_call", id: `call_${i}`, name: "nap", args: { i } };
  } else {
    yield { type: "text", text: FINAL_TEXT };
  }
  yield { type: "finish" };
}

async function* streamTurn(): AsyncGenerator<ModelEvent> {
  for (let i = 0; i < STREAM_DELTAS; i++) yield { type: "text", text: DELTA_TEXT };
  yield { type: "finish" };
}

let echoCalls = 0;
const tools: Tools = {
  echo: async ({ text }: { text: string }) => {
    echoCalls++;
    return text;
  },
  nap: async () => {
    await sleep(FANOUT_SLEEP_MS);
    return "rested";
  },
};
const prompt: Message[] = [{ role: "user", content: "go" }];

async function drain(loop: AsyncGenerator<LoopEvent, LoopResult>): Promise<{ result: LoopResult; events: number }> {
  let events = 0;
  for (;;) {
    const next = await loop.next();
    if (next.done) return { result: next.value, events };
    events++;
  }
}

const sdk: BenchSdk = {
  name: "floor",
  coldImport: null,
  async echoLoop(mode: EchoMode) {
    echoCalls = 0;
    const model = scriptedModel(echoTurn);
    let result: LoopResult;
    if (mode === "events") {
      let toolEnds = 0;
      const loop = runLoop(model, tools, prompt);
      for (;;) {
        const next = await loop.next();
        if (next.done) {
          result = next.value;
          break;
        }
        if (next.value.type === "tool_end") toolEnds++;
      }
      check(toolEnds === ECHO_STEPS - 1, `floor saw ${toolEnds} tool_end events`);
    } else {
      result = await runLoopResult(model, tools, prompt);
    }
    check(result.text === FINAL_TEXT && echoCalls === ECHO_STEPS - 1, `floor echo: ${result.text} / ${echoCalls}`);
  },
  async fanOut() {
    const { result } = await drain(runLoop(scriptedModel(fanOutTurn), tools, prompt));
    check(result.text === FINAL_TEXT && result.messages.length === 3 + FANOUT_CALLS, "floor fan-out");
  },
  async streamDeltas() {
    let deltas = 0;
    const loop = runLoop(scriptedModel(streamTurn), tools, prompt);
    for (;;) {
      const next = await loop.next();
      if (next.done) break;
      if (next.value.type === "text") deltas++;
    }
    check(deltas === STREAM_DELTAS, `floor saw ${deltas} deltas`);
  },
  async buildSessions(sessions: number) {
    const store = new Map<string, Message[]>();
    for (let s = 0; s < sessions; s++) {
      const messages: Message[] = [];
      for (let i = 0; i < MESSAGES_PER_SESSION; i++) {
        messages.push(
          i % 2 === 0
            ? { role: "user", content: sessionText(s, i) }
            : { role: "assistant", content: sessionText(s, i) },
        );
      }
      store.set(`session-${s}`, messages);
    }
    return store;
  },
};
export default sdk;

/**
 * Vercel AI SDK (`ai`): `streamText` / `generateText` with a zod `tool()`, driven by the SDK's own
 * `MockLanguageModelV3` from `ai/test` whose `doStream` / `doGenerate` build each response on demand.
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { generateId, generateText, stepCountIs, streamText, tool, type UIMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
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

type Part = LanguageModelV3StreamPart;
type Content = { type: "text"; text: string } | { type: "tool-call"; toolCallId: string; toolName: string; input: string };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const stop = { unified: "stop", raw: "stop" } as const;
const toolCallsReason = { unified: "tool-calls", raw: "tool_calls" } as const;

/** A ReadableStream that produces `parts` lazily, one per pull. */
function lazyStream(parts: () => Generator<Part>): ReadableStream<Part> {
  const iterator = parts();
  return new ReadableStream<Part>({
    pull(controller) {
      const next = iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}

function* textParts(deltas: number, text: string): Generator<Part> {
  yield { type: "stream-start", warnings: [] };
  yield { type: "text-start", id: "t0" };
  for (let i = 0; i < deltas; i++) yield { type: "text-delta", id: "t0", delta: text };
  yield { type: "text-end", id: "t0" };
  yield { type: "finish", finishReason: stop, usage };
}

function* toolParts(calls: Content[]): Generator<Part> {
  yield { type: "stream-start", warnings: [] };
  for (const call of calls) yield call as Part;
  yield { type: "finish", finishReason: toolCallsReason, usage };
}

/**
 * `MockLanguageModelV3` pushes every call's options into `doStreamCalls` / `doGenerateCalls`;
 * the scripts empty them on each call so nothing is recorded.
 */
function scriptedModel(turn: (callIndex: number) => Content[] | "stream"): MockLanguageModelV3 {
  let callIndex = 0;
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doStream: async () => {
      model.doStreamCalls.length = 0;
      const content = turn(callIndex++);
      if (content === "stream") return { stream: lazyStream(() => textParts(STREAM_DELTAS, DELTA_TEXT)) };
      const first = content[0]!;
      return {
        stream: lazyStream(() => (first.type === "text" ? textParts(1, first.text) : toolParts(content))),
      };
    },
    doGenerate: async () => {
      model.doGenerateCalls.length = 0;
      const content = turn(callIndex++);
      if (content === "stream") throw new Error("not scripted");
      const hasCalls = content[0]!.type === "tool-call";
      return { content, finishReason: hasCalls ? toolCallsReason : stop, usage, warnings: [] };
    },
  });
  return model;
}

const echoTurn = (callIndex: number): Content[] =>
  callIndex < ECHO_STEPS - 1
    ? [{ type: "tool-call", toolCallId: `call_${callIndex}`, toolName: "echo", input: JSON.stringify({ text: `ping ${callIndex}` }) }]
    : [{ type: "text", text: FINAL_TEXT }];

const fanOutTurn = (callIndex: number): Content[] =>
  callIndex === 0
    ? Array.from({ length: FANOUT_CALLS }, (_, i) => ({ type: "tool-call" as const, toolCallId: `call_${i}`, toolName: "nap", input: JSON.stringify({ i }) }))
    : [{ type: "text", text: FINAL_TEXT }];

let echoCalls = 0;
const tools = {
  echo: tool({
    description: "Echo the text back",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      echoCalls++;
      return text;
    },
  }),
  nap: tool({
    description: "Sleep, then answer",
    inputSchema: z.object({ i: z.number() }),
    execute: async () => {
      await sleep(FANOUT_SLEEP_MS);
      return "rested";
    },
  }),
};
const stopWhen = stepCountIs(ECHO_STEPS + 10);

const sdk: BenchSdk = {
  name: "AI SDK",
  coldImport: "ai",
  async echoLoop(mode: EchoMode) {
    echoCalls = 0;
    const model = scriptedModel(echoTurn);
    if (mode === "events") {
      const result = streamText({ model, tools, stopWhen, prompt: "go" });
      let toolResults = 0;
      for await (const part of result.fullStream) if (part.type === "tool-result") toolResults++;
      check(toolResults === ECHO_STEPS - 1, `ai-sdk saw ${toolResults} tool results`);
      check((await result.text) === FINAL_TEXT, "ai-sdk final text");
    } else {
      const result = await generateText({ model, tools, stopWhen, prompt: "go" });
      check(result.text === FINAL_TEXT && result.steps.length === ECHO_STEPS, `ai-sdk generateText: ${result.steps.length} steps`);
    }
    check(echoCalls === ECHO_STEPS - 1, `ai-sdk ran echo ${echoCalls} times`);
  },
  async fanOut() {
    const result = streamText({ model: scriptedModel(fanOutTurn), tools, stopWhen, prompt: "go" });
    let toolResults = 0;
    for await (const part of result.fullStream) if (part.type === "tool-result") toolResults++;
    check(toolResults === FANOUT_CALLS && (await result.text) === FINAL_TEXT, "ai-sdk fan-out");
  },
  async streamDeltas() {
    const result = streamText({ model: scriptedModel(() => "stream"), tools, stopWhen, prompt: "go" });
    let deltas = 0;
    for await (const part of result.fullStream) if (part.type === "text-delta") deltas++;
    check(deltas === STREAM_DELTAS, `ai-sdk saw ${deltas} deltas`);
  },
  async buildSessions(sessions: number) {
    // The AI SDK has no session store: chats are persisted as UIMessage[] (what useChat sends and stores).
    const store = new Map<string, UIMessage[]>();
    for (let s = 0; s < sessions; s++) {
      const messages: UIMessage[] = [];
      for (let i = 0; i < MESSAGES_PER_SESSION; i++) {
        messages.push({ id: generateId(), role: i % 2 === 0 ? "user" : "assistant", parts: [{ type: "text", text: sessionText(s, i) }] });
      }
      store.set(`session-${s}`, messages);
    }
    return store;
  },
};
export default sdk;

import { ProviderError } from "../errors/errors.js";
import type { ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";
import type { FakeScript } from "./fake-script.js";

/** Given to `makeProvider`: register cleanup (closing a fake server) to run after the case. */
export interface ProviderContractContext {
  onCleanup: (cleanup: () => unknown) => void;
}

/** Options of {@link runProviderContract}. */
export interface ProviderContractOptions {
  /** The test runner's `describe`. @default the global `describe`, else vitest's */
  describe?: (name: string, body: () => void) => unknown;
  /** The test runner's `it`; the third argument is a timeout in ms. @default the global `it`, else vitest's */
  it?: (name: string, body: () => Promise<void>, timeout?: number) => unknown;
  /** Per-case timeout in ms, passed to `it`. @default 15000 */
  timeoutMs?: number;
  /**
   * Whether the provider reports reasoning. `false` for one whose wire has reasoning the client
   * does not read (the AI SDK's OpenAI chat model ignores `reasoning_content`, as OpenAI itself
   * never sends it): the thinking case then checks that the text still arrives whole and no
   * thinking is made up.
   * @default true
   */
  thinking?: boolean;
}

interface Case {
  name: string;
  script: FakeScript;
  check(run: (options?: RunOptions) => Promise<Outcome>, options: ProviderContractOptions): Promise<void>;
}

interface RunOptions {
  signal?: AbortSignal;
  onEvent?: (event: ModelEvent) => void;
}

interface Outcome {
  events: ModelEvent[];
  error?: unknown;
}

const REQUEST: ModelRequest = {
  model: "contract-model",
  system: "You are a test.",
  messages: [{ role: "user", content: "Hello" }],
  tools: [
    {
      name: "get_weather",
      description: "Weather for a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    },
  ],
};

/**
 * The conformance suite every `Provider` adapter passes: `makeProvider(script)` must return a
 * provider that plays the `FakeScript` (a fake provider, or a real adapter pointed at a fake server
 * of its wire format). It checks: text deltas concatenate to the text, thinking, a tool call with
 * parsed args, parallel calls in order, usage at most once and before `finish`, exactly one
 * `finish` and last, abort → `AbortError` with no `finish`, failures → `ProviderError` (before and
 * after output).
 *
 * Registers the cases with the given `describe`/`it`, else the global ones (vitest `globals`, jest,
 * mocha), else vitest's (found without importing vitest, so this entry never loads a test runner).
 * Call it at the top level of a test file. Assertions throw plain `Error`s: any runner reports them.
 *
 * @example
 * runProviderContract("openai over HTTP", async (script, { onCleanup }) => {
 *   const server = await createFakeOpenAIServer(script);
 *   onCleanup(() => server.close());
 *   return openai({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
 * });
 */
export function runProviderContract(
  name: string,
  makeProvider: (script: FakeScript, context: ProviderContractContext) => Provider | Promise<Provider>,
  options: ProviderContractOptions = {},
): void {
  const { describe, it } = testRunner(options);
  const timeout = options.timeoutMs ?? 15_000;
  describe(`provider contract: ${name}`, () => {
    for (const testCase of CASES) {
      it(
        testCase.name,
        async () => {
          const cleanups: (() => unknown)[] = [];
          try {
            const provider = await makeProvider(testCase.script, { onCleanup: (cleanup) => cleanups.push(cleanup) });
            await testCase.check((run) => drain(provider, run), options);
          } finally {
            for (const cleanup of cleanups.reverse()) await cleanup();
          }
        },
        timeout,
      );
    }
  });
}

function testRunner(options: ProviderContractOptions): Required<Pick<ProviderContractOptions, "describe" | "it">> {
  const scope = globalThis as {
    describe?: unknown;
    it?: unknown;
    __vitest_index__?: { describe?: unknown; it?: unknown };
  };
  // vitest without `globals` still exposes its API as `__vitest_index__` (it backs `import.meta.vitest`).
  const pick = (key: "describe" | "it"): unknown =>
    options[key] ?? (typeof scope[key] === "function" ? scope[key] : scope.__vitest_index__?.[key]);
  const describe = pick("describe");
  const it = pick("it");
  if (typeof describe !== "function" || typeof it !== "function") {
    throw new Error(
      "runProviderContract: no test runner found; call it from a vitest test file or pass { describe, it } from your runner",
    );
  }
  return { describe, it } as Required<Pick<ProviderContractOptions, "describe" | "it">>;
}

async function drain(provider: Provider, options: RunOptions = {}): Promise<Outcome> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of provider.stream(structuredClone(REQUEST), {
      signal: options.signal ?? new AbortController().signal,
    })) {
      events.push(event);
      options.onEvent?.(event);
    }
    return { events };
  } catch (error) {
    return { events, error };
  }
}

function describeValue(value: unknown): string {
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  return typeof value === "string" ? value : JSON.stringify(value);
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Provider contract: ${message}`);
}

function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  assert(a === b, `${what}: expected ${b}, got ${a}`);
}

/** The stream shape every successful response has. */
function completed(outcome: Outcome, reason: string): ModelEvent[] {
  assert(outcome.error === undefined, `the stream failed: ${describeValue(outcome.error)}`);
  const { events } = outcome;
  const finishes = events.filter((event) => event.type === "finish");
  assert(finishes.length === 1, `expected exactly one finish, got ${finishes.length}`);
  assert(events[events.length - 1]?.type === "finish", "finish must be the last event");
  same((finishes[0] as { reason: string }).reason, reason, "finish reason");
  assert(events.filter((event) => event.type === "usage").length <= 1, "at most one usage event");
  return events;
}

const textOf = (events: ModelEvent[], type: "text_delta" | "thinking_delta") =>
  events.map((event) => (event.type === type ? event.text : "")).join("");
const callsOf = (events: ModelEvent[]) =>
  events.flatMap((event) => (event.type === "tool_call" ? [{ id: event.id, name: event.name, args: event.args }] : []));

function failed(outcome: Outcome, message: string): void {
  assert(outcome.error !== undefined, "the stream should have failed");
  assert(ProviderError.isInstance(outcome.error), `expected a ProviderError, got ${describeValue(outcome.error)}`);
  assert((outcome.error as Error).name === "ProviderError", "error name must be ProviderError");
  assert(
    (outcome.error as Error).message.includes(message),
    `error message should contain "${message}": ${(outcome.error as Error).message}`,
  );
  assert(!outcome.events.some((event) => event.type === "finish"), "a failed stream emits no finish");
}

function aborted(outcome: Outcome): void {
  assert(outcome.error !== undefined, "an aborted stream must reject");
  assert((outcome.error as Error).name === "AbortError", `expected an AbortError, got ${describeValue(outcome.error)}`);
  assert(!outcome.events.some((event) => event.type === "finish"), "an aborted stream emits no finish");
}

const TEXT = "Hello there! Streaming works, word by word.";
const ARGS = { city: "Paris", days: 3, units: { metric: true }, tags: ["a", "b"], note: "caf\u00e9 \u2014 ok" };

const CASES: Case[] = [
  {
    name: "streams text deltas that concatenate to the full text",
    script: [{ text: TEXT }],
    async check(run) {
      const events = completed(await run(), "stop");
      assert(events.filter((event) => event.type === "text_delta").length > 1, "text should arrive in several deltas");
      same(textOf(events, "text_delta"), TEXT, "text");
    },
  },
  {
    name: "streams thinking before the text",
    script: [{ thinking: "First I think, then I answer.", text: "The answer." }],
    async check(run, options) {
      const events = completed(await run(), "stop");
      if (options.thinking === false) {
        same(textOf(events, "thinking_delta"), "", "thinking (the provider reports none)");
        same(textOf(events, "text_delta"), "The answer.", "text");
        return;
      }
      same(textOf(events, "thinking_delta"), "First I think, then I answer.", "thinking");
      same(textOf(events, "text_delta"), "The answer.", "text");
      const firstThinking = events.findIndex((event) => event.type === "thinking_delta");
      const firstText = events.findIndex((event) => event.type === "text_delta");
      assert(firstThinking >= 0 && firstThinking < firstText, "thinking comes before text");
    },
  },
  {
    name: "emits a complete tool call with parsed args",
    script: [{ toolCalls: [{ id: "call_weather_1", name: "get_weather", args: ARGS }] }],
    async check(run) {
      const events = completed(await run(), "tool_calls");
      same(callsOf(events), [{ id: "call_weather_1", name: "get_weather", args: ARGS }], "tool calls");
    },
  },
  {
    name: "emits parallel tool calls in order (no-argument call included)",
    script: [
      {
        text: "Checking both.",
        toolCalls: [
          { id: "call_p1", name: "get_weather", args: { city: "Oslo" } },
          { id: "call_p2", name: "get_time", args: {} },
        ],
      },
    ],
    async check(run) {
      const events = completed(await run(), "tool_calls");
      same(textOf(events, "text_delta"), "Checking both.", "text");
      same(
        callsOf(events),
        [
          { id: "call_p1", name: "get_weather", args: { city: "Oslo" } },
          { id: "call_p2", name: "get_time", args: {} },
        ],
        "tool calls",
      );
    },
  },
  {
    name: "emits usage once, before finish",
    script: [{ text: "Counted.", usage: { inputTokens: 42, outputTokens: 7 } }],
    async check(run) {
      const events = completed(await run(), "stop");
      const usage = events.filter((event) => event.type === "usage");
      assert(usage.length === 1, `expected one usage event, got ${usage.length}`);
      const { inputTokens, outputTokens } = usage[0] as { inputTokens: number; outputTokens: number };
      same({ inputTokens, outputTokens }, { inputTokens: 42, outputTokens: 7 }, "usage");
    },
  },
  {
    name: "abort while waiting for the response rejects with AbortError and no events",
    script: [{ text: "never seen", delayMs: 10_000 }],
    async check(run) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 50);
      const outcome = await run({ signal: controller.signal });
      clearTimeout(timer);
      aborted(outcome);
      same(outcome.events, [], "events before the abort");
    },
  },
  {
    name: "abort mid-stream rejects with AbortError: nothing after the abort, no finish",
    script: [{ chunks: ["one ", "two ", "three ", "four ", "five"], usage: { inputTokens: 1, outputTokens: 5 } }],
    async check(run) {
      const controller = new AbortController();
      const outcome = await run({ signal: controller.signal, onEvent: () => controller.abort() });
      aborted(outcome);
      same(outcome.events, [{ type: "text_delta", text: "one " }], "events");
    },
  },
  {
    name: "an already aborted signal rejects with AbortError and no events",
    script: [{ text: "never seen" }],
    async check(run) {
      const outcome = await run({ signal: AbortSignal.abort() });
      aborted(outcome);
      same(outcome.events, [], "events");
    },
  },
  {
    name: "a failure before any output is a ProviderError",
    script: [{ error: new ProviderError("model not found", { provider: "fake", status: 404, retryable: false }) }],
    async check(run) {
      const outcome = await run();
      failed(outcome, "model not found");
      assert((outcome.error as ProviderError).retryable === false, "a 404 is not retryable");
    },
  },
  {
    name: "a failure after output still fails the stream, with no finish",
    script: [
      {
        text: "partial answer",
        error: new ProviderError("overloaded", { provider: "fake", retryable: true, errorType: "overloaded_error" }),
      },
    ],
    async check(run) {
      const outcome = await run();
      same(textOf(outcome.events, "text_delta"), "partial answer", "text before the failure");
      failed(outcome, "overloaded");
    },
  },
];

import { fakeTurnEvents, wordChunks, type FakeScript, type FakeTurn } from "./fake-script.js";
import {
  fakeErrorMessage,
  fakeErrorType,
  toolCallSteps,
  startFakeHttpServer,
  type FakeServer,
  type FakeServerOptions,
  type FakeWireFormat,
} from "./fake-http-server.js";
import { fromAnthropicRequest } from "./from-anthropic-request.js";

const STOP: Record<string, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
  other: "pause_turn",
};

const event = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;

const anthropicFormat: FakeWireFormat = {
  transport: "anthropic",
  path: "/v1/messages",
  baseURLSuffix: "",
  toModelRequest: fromAnthropicRequest,
  errorBody: (message, type) => ({ type: "error", error: { type, message } }),
  encodeTurn(turn: FakeTurn, callIndex: number, withError: boolean): string[] {
    const events = fakeTurnEvents(turn, callIndex);
    const usage = turn.usage;
    const cached = usage?.cachedInputTokens;
    // The real API always sends `usage` in message_start (clients such as the AI SDK's require it); zeros when the
    // script has none.
    const message: Record<string, unknown> = {
      id: `msg_fake_${callIndex}`,
      type: "message",
      role: "assistant",
      model: "fake",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage
        ? {
            input_tokens: usage.inputTokens - (cached ?? 0),
            output_tokens: 1,
            ...(cached === undefined ? {} : { cache_read_input_tokens: cached }),
          }
        : { input_tokens: 0, output_tokens: 0 },
    };
    const out = [event({ type: "message_start", message }), event({ type: "ping" })];
    let index = 0;
    if (turn.thinking) {
      out.push(
        event({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }),
      );
      for (const text of wordChunks(turn.thinking))
        out.push(event({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: text } }));
      out.push(
        event({
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: `fake-signature-${callIndex}` },
        }),
      );
      out.push(event({ type: "content_block_stop", index: index++ }));
    }
    const texts = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : []));
    if (texts.length > 0) {
      out.push(event({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      for (const text of texts)
        out.push(event({ type: "content_block_delta", index, delta: { type: "text_delta", text } }));
      out.push(event({ type: "content_block_stop", index: index++ }));
    }
    // Tool-use blocks in the order their steps come (each block's index: the first free one, then the call's order).
    const first = index;
    const inputDelta = (at: number, json: string) =>
      event({ type: "content_block_delta", index: at, delta: { type: "input_json_delta", partial_json: json } });
    for (const step of toolCallSteps(events)) {
      const at = first + step.index;
      if (step.step === "start") {
        const block = { type: "tool_use", id: step.id, name: step.name, input: {} };
        out.push(event({ type: "content_block_start", index: at, content_block: block }), inputDelta(at, ""));
      } else if (step.step === "args") out.push(inputDelta(at, step.text));
      else out.push(event({ type: "content_block_stop", index: at }));
      index = Math.max(index, at + 1);
    }
    if (withError) {
      out.push(
        event({
          type: "error",
          error: { type: fakeErrorType(turn.error, "api_error"), message: fakeErrorMessage(turn.error) },
        }),
      );
      return out;
    }
    const finish = events.find((e) => e.type === "finish");
    const reason = finish?.type === "finish" ? finish.reason : "stop";
    out.push(
      event({
        type: "message_delta",
        delta: { stop_reason: STOP[reason] ?? "end_turn", stop_sequence: null },
        usage: { output_tokens: usage?.outputTokens ?? 0 },
      }),
    );
    out.push(event({ type: "message_stop" }));
    return out;
  },
};

/**
 * Serves a `FakeScript` over real HTTP as Anthropic Messages (SSE: thinking blocks with a fake
 * signature, text, `tool_use` blocks with `input_json_delta` fragments, cache usage), telling the
 * same story as `createFakeProvider(script)`. Point `anthropic({ baseURL: server.baseURL })` at it.
 *
 * A function script gets the request in the shape `createFakeProvider` gives it (tool names as
 * defined, tool results as values, no `caller`), and `{ transport: "anthropic", raw }` with the
 * body as sent. `maxOutputTokens` is always set (the API requires `max_tokens`).
 *
 * Node only: `node:http` is imported when the function runs, so the testing entry itself still
 * loads anywhere.
 *
 * @example
 * const server = await createFakeAnthropicServer([{ thinking: "Hmm.", text: "Hi!" }]);
 * const provider = anthropic({ baseURL: server.baseURL, apiKey: "test" });
 * await server.close();
 */
export function createFakeAnthropicServer(script: FakeScript, options: FakeServerOptions = {}): Promise<FakeServer> {
  return startFakeHttpServer({ script, format: anthropicFormat, options });
}

import { fakeTurnEvents, type FakeScript, type FakeTurn } from "./fake-script.js";
import {
  fakeErrorMessage,
  fakeErrorType,
  startFakeHttpServer,
  toolCallSteps,
  type FakeServer,
  type FakeServerOptions,
  type FakeWireFormat,
} from "./fake-http-server.js";
import { fromOpenAIRequest } from "./from-openai-request.js";

const FINISH: Record<string, string> = {
  stop: "stop",
  tool_calls: "tool_calls",
  length: "length",
  content_filter: "content_filter",
  other: "other",
};

const openAIFormat: FakeWireFormat = {
  transport: "openai",
  path: "/v1/chat/completions",
  baseURLSuffix: "/v1",
  toModelRequest: fromOpenAIRequest,
  errorBody: (message, type) => ({ error: { message, type, param: null, code: null } }),
  encodeTurn(turn: FakeTurn, callIndex: number, withError: boolean): string[] {
    const id = `chatcmpl-fake-${callIndex}`;
    const chunk = (body: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: "fake", ...body })}\n\n`;
    const delta = (d: Record<string, unknown>, finish: string | null = null) =>
      chunk({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
    const out = [delta({ role: "assistant", content: "" })];
    const events = fakeTurnEvents(turn, callIndex);
    let callsSent = false;
    for (const event of events) {
      switch (event.type) {
        case "thinking_delta":
          out.push(delta({ reasoning_content: event.text }));
          break;
        case "text_delta":
          out.push(delta({ content: event.text }));
          break;
        case "tool_call_start":
        case "tool_call_delta":
        case "tool_call": {
          // All calls at once, in the order their steps come (interleaved when the script streams them so).
          if (callsSent) break;
          callsSent = true;
          for (const step of toolCallSteps(events)) {
            const { index } = step;
            if (step.step === "start") {
              const fn = { name: step.name, arguments: "" };
              out.push(delta({ tool_calls: [{ index, id: step.id, type: "function", function: fn }] }));
            } else if (step.step === "args") {
              out.push(delta({ tool_calls: [{ index, function: { arguments: step.text } }] }));
            }
          }
          break;
        }
        case "usage": {
          const usage: Record<string, unknown> = {
            prompt_tokens: event.inputTokens,
            completion_tokens: event.outputTokens,
            total_tokens: event.inputTokens + event.outputTokens,
          };
          if (event.cachedInputTokens !== undefined)
            usage.prompt_tokens_details = { cached_tokens: event.cachedInputTokens };
          out.push(chunk({ choices: [], usage }));
          break;
        }
        case "finish":
          // Chat Completions sends finish_reason before the usage chunk.
          out.splice(turn.usage ? out.length - 1 : out.length, 0, delta({}, FINISH[event.reason] ?? "stop"));
          out.push("data: [DONE]\n\n");
          break;
      }
    }
    if (withError) {
      const error = {
        message: fakeErrorMessage(turn.error),
        type: fakeErrorType(turn.error, "server_error"),
        param: null,
        code: null,
      };
      out.push(`data: ${JSON.stringify({ error })}\n\n`);
    }
    return out;
  },
};

/**
 * Serves a `FakeScript` over real HTTP as OpenAI Chat Completions (SSE with `reasoning_content`,
 * tool-call arguments split across chunks, a usage chunk, `[DONE]`), telling the same story as
 * `createFakeProvider(script)`. Point `openai({ baseURL: server.baseURL })` at it.
 *
 * A function script gets the request in the shape `createFakeProvider` gives it (tool names as
 * defined, tool results as values, no `caller`), and `{ transport: "openai", raw }` with the
 * body as sent. Chat Completions carries no thinking and no `isError`, so those do not come back.
 *
 * Node only: `node:http` is imported when the function runs, so the testing entry itself still
 * loads anywhere.
 *
 * @example
 * const server = await createFakeOpenAIServer([{ text: "Hello!" }]);
 * const provider = openai({ baseURL: server.baseURL, apiKey: "test" });
 * // ... run the agent; then inspect server.requests / server.calls
 * await server.close();
 */
export function createFakeOpenAIServer(script: FakeScript, options: FakeServerOptions = {}): Promise<FakeServer> {
  return startFakeHttpServer({ script, format: openAIFormat, options });
}

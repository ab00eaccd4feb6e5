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
import { fromResponsesRequest } from "./from-responses-request.js";

/** `response.incomplete` reasons for the finish reasons that are not a completed response. */
const INCOMPLETE: Record<string, string> = {
  length: "max_output_tokens",
  content_filter: "content_filter",
  other: "other",
};

/** One call's Responses events, each with its `sequence_number`. */
function createEncoder(callIndex: number) {
  const out: string[] = [];
  let sequence = 0;
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: `resp_fake_${callIndex}`,
    object: "response",
    created_at: 0,
    status,
    model: "fake",
    output: [],
    ...extra,
  });
  return {
    out,
    response,
    push: (data: Record<string, unknown>) => {
      out.push(`event: ${String(data.type)}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`);
    },
  };
}

const responsesFormat: FakeWireFormat = {
  transport: "responses",
  path: "/v1/responses",
  baseURLSuffix: "/v1",
  toModelRequest: fromResponsesRequest,
  errorBody: (message, type) => ({ error: { message, type, param: null, code: null } }),
  encodeTurn(turn: FakeTurn, callIndex: number, withError: boolean): string[] {
    const { out, push, response } = createEncoder(callIndex);
    push({ type: "response.created", response: response("in_progress") });
    push({ type: "response.in_progress", response: response("in_progress") });
    const events = fakeTurnEvents(turn, callIndex);
    let index = 0;
    if (turn.thinking) {
      const id = `rs_fake_${callIndex}`;
      const item = { id, type: "reasoning", summary: [] };
      push({ type: "response.output_item.added", output_index: index, item });
      push({
        type: "response.reasoning_summary_part.added",
        item_id: id,
        output_index: index,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
      for (const event of events) {
        if (event.type !== "thinking_delta") continue;
        push({
          type: "response.reasoning_summary_text.delta",
          item_id: id,
          output_index: index,
          summary_index: 0,
          delta: event.text,
        });
      }
      const summary = [{ type: "summary_text", text: turn.thinking }];
      push({
        type: "response.output_item.done",
        output_index: index++,
        item: { ...item, summary, encrypted_content: `fake-encrypted-${callIndex}` },
      });
    }
    const texts = events.flatMap((event) => (event.type === "text_delta" ? [event.text] : []));
    if (texts.length > 0) {
      const id = `msg_fake_${callIndex}`;
      push({
        type: "response.output_item.added",
        output_index: index,
        item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
      });
      for (const delta of texts)
        push({ type: "response.output_text.delta", item_id: id, output_index: index, content_index: 0, delta });
      const content = [{ type: "output_text", text: texts.join(""), annotations: [] }];
      push({
        type: "response.output_item.done",
        output_index: index++,
        item: { id, type: "message", status: "completed", role: "assistant", content },
      });
    }
    // Function-call items in the order their steps come (interleaved when the script streams them so).
    const first = index;
    const items = new Map<number, Record<string, unknown>>();
    for (const step of toolCallSteps(events)) {
      const at = first + step.index;
      const id = `fc_fake_${callIndex}_${at}`;
      if (step.step === "start") {
        const item = {
          id,
          type: "function_call",
          call_id: step.id,
          name: step.name,
          arguments: "",
          status: "in_progress",
        };
        items.set(at, item);
        push({ type: "response.output_item.added", output_index: at, item });
      } else if (step.step === "args") {
        push({ type: "response.function_call_arguments.delta", item_id: id, output_index: at, delta: step.text });
      } else {
        const { args } = step;
        push({ type: "response.function_call_arguments.done", item_id: id, output_index: at, arguments: args });
        push({
          type: "response.output_item.done",
          output_index: at,
          item: { ...items.get(at), arguments: args, status: "completed" },
        });
      }
      index = Math.max(index, at + 1);
    }
    if (withError) {
      const error = {
        type: fakeErrorType(turn.error, "server_error"),
        code: fakeErrorType(turn.error, "server_error"),
        message: fakeErrorMessage(turn.error),
        param: null,
      };
      push({ type: "error", error });
      push({
        type: "response.failed",
        response: response("failed", { error: { code: error.code, message: error.message } }),
      });
      return out;
    }
    const usage = turn.usage && {
      input_tokens: turn.usage.inputTokens,
      input_tokens_details: { cached_tokens: turn.usage.cachedInputTokens ?? 0 },
      output_tokens: turn.usage.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: turn.usage.inputTokens + turn.usage.outputTokens,
    };
    const finish = events.find((event) => event.type === "finish");
    const incomplete = finish?.type === "finish" ? INCOMPLETE[finish.reason] : undefined;
    if (incomplete === undefined)
      push({ type: "response.completed", response: response("completed", { usage: usage ?? null }) });
    else
      push({
        type: "response.incomplete",
        response: response("incomplete", { usage: usage ?? null, incomplete_details: { reason: incomplete } }),
      });
    return out;
  },
};

/**
 * Serves a `FakeScript` over real HTTP as the OpenAI Responses API (`event:` + `data:` SSE with
 * sequence numbers: a reasoning item with a summary and encrypted content for `thinking`, a
 * message item for the text, one `function_call` item per call with its arguments split across
 * deltas, `response.completed` with usage, or `response.incomplete` for `length`), telling the
 * same story as `createFakeProvider(script)`. Point `openai({ api: "responses", baseURL: server.baseURL })` at it.
 *
 * A function script gets the request in the shape `createFakeProvider` gives it (tool names as
 * defined, tool results as values, no `caller`), and `{ transport: "responses", raw }` with the
 * body as sent. A reasoning item sent back comes to the script as a thinking part whose
 * `providerMetadata.openaiResponses.item` is that item. The wire has no `isError` for results.
 *
 * Node only: `node:http` is imported when the function runs.
 *
 * @example
 * const server = await createFakeResponsesServer([{ thinking: "Short one.", text: "Hello!" }]);
 * const provider = openai({ api: "responses", baseURL: server.baseURL, apiKey: "test" });
 * // ... run the agent; then inspect server.requests / server.calls
 * await server.close();
 */
export function createFakeResponsesServer(script: FakeScript, options: FakeServerOptions = {}): Promise<FakeServer> {
  return startFakeHttpServer({ script, format: responsesFormat, options });
}

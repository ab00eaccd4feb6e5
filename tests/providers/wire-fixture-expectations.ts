/**
 * What each recorded wire fixture must produce, derived by hand from the bytes in
 * `tests/fixtures/wire/` and checked against its README notes; where the two differ, the bytes win.
 *
 * Shapes: `stream` fixtures are replayed as a 200 event stream through `openai()` or
 * `anthropic()`; `http-error` fixtures are served as an error body with their recorded status;
 * `responses` fixtures (OpenAI Responses API) go through the SSE parser (`events`, `counts`,
 * `terminal`, `calls`, `outputText`: the raw events) and through `openai({ api: "responses" })`
 * (`adapter`: what the provider streams).
 */

export interface ExpectedError {
  status: number | undefined;
  message: string;
  retryable: boolean;
  errorType: string | undefined;
}

export interface StreamExpectation {
  shape: "stream";
  api: "openai" | "anthropic";
  text: string;
  /** Thinking blocks (a block closes at a delta that carries a signature). */
  thinking: { text: string; signature?: string; redacted?: boolean }[];
  calls: { id: string; name: string; args: unknown }[];
  /** `null`: the stream carries no usage. */
  usage: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens?: number;
    cacheWriteInputTokens?: number;
    reasoningTokens?: number;
  } | null;
  finish: "stop" | "tool_calls" | "length" | "content_filter" | "other" | null;
  /** Set when the stream must fail (after the output above). */
  error?: ExpectedError;
  note?: string;
}

export interface HttpErrorExpectation {
  shape: "http-error";
  api: "openai" | "anthropic";
  status: number;
  error: ExpectedError;
}

export interface ResponsesExpectation {
  shape: "responses";
  events: number;
  counts: Record<string, number>;
  terminal: { type: string; status: string };
  calls: { name: string; arguments: string }[];
  outputText: string | { length: number };
  adapter: {
    text: string | { length: number };
    /** Length of the streamed thinking text, and the reasoning items kept (one per item). */
    thinking: { length: number; items: number };
    calls: { id: string; name: string; args: unknown }[];
    usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; reasoningTokens?: number } | null;
    finish: "stop" | "tool_calls" | null;
    error?: ExpectedError;
  };
}

export type FixtureExpectation = StreamExpectation | HttpErrorExpectation | ResponsesExpectation;

const REDACTED_1 =
  "EqkECkYIBxgCKkA8AZ4noDfV5VcOJe/p3JTRB6Xz5297mrWhl3MbHSXDKTMfuB/Z52U2teiWWTN0gg4eQ4bGS9TPilFX/xWTIq9H" +
  "EgyOmstSPriNwyn1G7AaDC51r0hQ062qEd55IiIwYQj3Z3MSBBv0bSVdXi60LEHDvC7tzzmpQfw5Hb6R9rtyOz/6vC/xPw9/E1mU" +
  "qfBqKpADO2HS2QlE/CnuzR901nZOn0TOw7kEXwH7kg30c85b9W7iKALgEejY9sELMBdPyIZNlTgKqNOKtY3R/aV5rGIRPTHh2Wh9" +
  "Ijmqsf/TT7i//Z+InaYTo6f/fxF8R0vFXMRPOBME4XIscb05HcNhh4c9FDkpqQGYKaq31IR1NNwPWA0BsvdDz7SIo1nfx4H+X0qK" +
  "KqqegKnQ3ynaXiD5ydT1C4U7fku4ftgF0LGwIk4PwXBE+4BP0DcKr1HV3cn7YSyNakBSDTvRJMKcXW6hl7X3w2a4//sxjC1Cjq0u" +
  "zkIHkhzRWirN0OSXt+g3m6b1ex0wGmSyuO17Ak6kgVBpxwPugtrqsflG0oujFem44hecXJ9LQNssPf4RSlcydiG8EXp/XLGTe0Yf" +
  "Hbe3kJagkowSH/Dm6ErXBiVs7249brncyY8WA+7MOoqIM82YIU095B9frCqDJDUWnN84VwOszRrcaywmpJXZO4aeQLMC1kXD5Wab" +
  "u+O/00tD/X67EWkkWuR0AhDIXXjpot45vnBd4ewJ/hgB";
const REDACTED_2 =
  "EtgBCkYIBxgCKkDQfGkwzflEJP5asG3oQfJXcTwJLoRznn8CmuczWCsJ36dv93X9H0NCeaJRbi5BrCA2DyMgFnRKRuzZx8VTv5ax" +
  "EgwkFmcHJk8BSiZMZRQaDDYv2KZPfbFgRa2QjyIwm47f5YYsSK9CT/oh/WWpU1HJJVHr8lrC6HG1ItRdtMvYQYmEGy+KhyfcIACf" +
  "bssVKkDGv/NKqNMOAcu0bd66gJ2+R1R0PX11Jxn2Nd1JtZqkxx7vMT/PXtHDhm9jkDZ2k/6RjRRFuab/DBV3yRYdZ1J0GAE=";
const THINKING_SIGNATURE =
  "EvMCCkYICxgCKkCHP2cSuEdcJK/0rFwqES/ecn+VurRpNTwI4XNyM0vnNfGsc9OmE8YYHauwBZ/uaRpmlEn2I4/kszHlcpptO82J" +
  "EgyRMSbPkJYaegxYF3AaDHZbSm9EzZ6CM+YtliIw3iNVP/ilYrfoneo8S2+ad/5xSC62nKbk6joLtKmqXgXwYFJRpjIUjM2V7EGR" +
  "eOPRKtoBKfNHVmdNf7SeMhHalX/ObSeJ1G/NjDyGQAsDjyHGd7uY1r5gAIn3Cpdv5r+gHYJmWT+w2uiKZsBDRoSf4O3Km0l752Eh" +
  "PD4InEhqpCKyqhbUZ3dt5+JVKQHk2iyTBhQMB/XBYgZTstIpRqQRXU5ypcrydgnqj3mD1G9C7YC0ZTCNvFluAx0OL8q+cQwufgfq" +
  "KquLEf2+XMYzhx9jYkVFEpnf/s1nx6gNBATKfF3Dmrs2r4tWu2QJB+FjlRuDp/8dxUxgJbmyhGxb7XsYeb1vgb7wwzDvP/UhjfQY" +
  "AQ==";

const GROQ_TOOL_FAILED =
  "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: " +
  "errors: [missing properties: 'name', additionalProperties 'invalid_param' not allowed]";

const NANO_TEXT =
  "**Holiday Name:** Harmony Day\n\n**Date:** Celebrated annually on the first Saturday of May\n\n**Purpose:** Harmony Day is dedicated to fostering understanding, kindness, and unity among diverse communities. It emphasizes celebrating cultural differences while promoting empathy and collaboration.\n\n**Traditions:**\n\n" +
  "1. **Cultural Potluck Gatherings:** Communities come together to share traditional dishes from their backgrounds, encouraging conversation and curiosity about different cultures.\n\n" +
  "2. **Story Circles:** People of all ages are encouraged to share stories from their heritage or personal experiences that promote understanding and empathy.\n\n" +
  "3. **Decorate for Unity:** Public spaces and homes are decorated with symbols representing different cultures\u2014flags, traditional art, and meaningful motifs\u2014to visually celebrate diversity.\n\n" +
  "4. **Collaborative Art Projects:** Communities create murals or sculptures that symbolize unity and diversity, involving artists and residents of all ages.\n\n" +
  "5. **Acts of Kindness:** As a central activity, participants perform Small acts of kindness throughout the day, such as volunteering, helping neighbors, or inviting someone new to join festivities.\n\n" +
  "6. **Music & Dance Festivals:** Local performances showcase a variety of musical styles and dances from different parts of the world, emphasizing shared joy and creativity.\n\n" +
  "7. **Educational Workshops:** Interactive sessions teach about various cultures\u2019 histories, traditions, and celebrations, fostering respect and knowledge.\n\n" +
  "**Overall Spirit:** Harmony Day aims to create a sense of global community, reminding everyone that despite our differences, we are all connected through shared human experiences and mutual respect.";

const CROSSING_TEXT =
  'Here are the basic steps for safely crossing the street:\n\n**At intersections with traffic lights:**\n- Wait for the pedestrian "Walk" signal\n- Look both ways before stepping into the street\n- Make eye contact with drivers when possible\n- Stay alert for turning vehicles\n\n' +
  "**At intersections without signals:**\n- Use crosswalks when available\n- Stop at the curb and look left, right, then left again\n- Wait for a clear gap in traffic\n- Walk briskly but don't run\n- Keep looking for traffic as you cross\n\n" +
  "**General safety tips:**\n- Put away phones and remove headphones\n- Wear bright or reflective clothing in low light\n- Never assume drivers see you\n- Avoid crossing between parked cars\n- Walk facing traffic when there's no sidewalk\n\n" +
  "**In busy urban areas:**\n- Follow pedestrian signals strictly\n- Be extra cautious of cyclists in bike lanes\n- Watch for buses and large vehicles with blind spots\n\n" +
  "The key is to be visible, alert, and predictable in your movements. Always prioritize safety over speed when crossing streets.";

const stream = (
  e: Omit<StreamExpectation, "shape" | "thinking" | "calls" | "text"> & Partial<StreamExpectation>,
): StreamExpectation => ({
  shape: "stream",
  text: "",
  thinking: [],
  calls: [],
  ...e,
});

/** Keyed by the path under `tests/fixtures/wire/`. `.meta.json` files are read for the status of their partner. */
export const FIXTURES: Record<string, FixtureExpectation> = {
  // ---- OpenAI Chat Completions ----
  "openai-chat/text-gpt-4.1-nano.chunks.jsonl": stream({
    api: "openai",
    text: NANO_TEXT,
    usage: { inputTokens: 16, outputTokens: 300, cachedInputTokens: 0 },
    finish: "stop",
    note: "multi-byte characters (\u2014, \u2019) split by the random pieces",
  }),
  "openai-chat/text-gpt-4o.sse": stream({
    api: "openai",
    text: "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.",
    usage: { inputTokens: 14, outputTokens: 30 },
    finish: "stop",
  }),
  "openai-chat/tool-call-single-gpt-4o.sse": stream({
    api: "openai",
    calls: [
      {
        id: "call_c91SqDXlYFuETYv8mUHzz6pp",
        name: "GetWeatherArgs",
        args: { city: "Edinburgh", country: "UK", units: "c" },
      },
    ],
    usage: { inputTokens: 76, outputTokens: 24 },
    finish: "tool_calls",
  }),
  "openai-chat/parallel-tool-calls-gpt-4o.sse": stream({
    api: "openai",
    calls: [
      {
        id: "call_JMW1whyEaYG438VE1OIflxA2",
        name: "GetWeatherArgs",
        args: { city: "Edinburgh", country: "GB", units: "c" },
      },
      { id: "call_DNYTawLBoN8fj3KN6qU9N1Ou", name: "get_stock_price", args: { ticker: "AAPL", exchange: "NASDAQ" } },
    ],
    usage: { inputTokens: 149, outputTokens: 60 },
    finish: "tool_calls",
  }),
  "openai-chat/finish-length-gpt-4o.sse": stream({
    api: "openai",
    text: '{"',
    usage: { inputTokens: 79, outputTokens: 1 },
    finish: "length",
  }),
  "openai-chat/refusal-gpt-4o.sse": stream({
    api: "openai",
    text: "I'm sorry, I can't assist with that request.",
    usage: { inputTokens: 79, outputTokens: 11 },
    finish: "stop",
    note: "delta.refusal fragments are streamed as text",
  }),
  "openai-chat/multiple-choices-n3-gpt-4o.sse": stream({
    api: "openai",
    text: '{"city":"San Francisco","temperature":65,"units":"f"}',
    usage: { inputTokens: 79, outputTokens: 42 },
    finish: "stop",
    note: "choice 0 only (its temperature is 65; choices 1 and 2 say 61 and 59)",
  }),
  "openai-chat/parallel-noarg-tool-calls-gpt-4o.sse": stream({
    api: "openai",
    calls: [
      { id: "call_q2UyBRP7eXNTzAoR8lEhjc9Z", name: "get_country", args: {} },
      { id: "call_b51ijcpFkDiTQG1bQzsrmtW5", name: "get_product_name", args: {} },
    ],
    usage: { inputTokens: 364, outputTokens: 40, cachedInputTokens: 0 },
    finish: "tool_calls",
  }),
  "openai-chat/azure-model-router-gpt-5-nano.chunks.jsonl": stream({
    api: "openai",
    text: "Capital of Denmark.",
    usage: { inputTokens: 15, outputTokens: 78, cachedInputTokens: 0, reasoningTokens: 64 },
    finish: "stop",
    note: "first chunk has choices [] and is not the usage chunk",
  }),

  // ---- OpenAI-compatible servers ----
  "openai-compatible/groq-llama-tool-call-one-chunk.chunks.jsonl": stream({
    api: "openai",
    calls: [{ id: "tk85n1k4m", name: "weather", args: {} }],
    usage: { inputTokens: 210, outputTokens: 15 },
    finish: "tool_calls",
  }),
  "openai-compatible/dashscope-qwen3-tool-call-empty-id.chunks.jsonl": stream({
    api: "openai",
    calls: [{ id: "call_eee11723464a4b9eb8cee71d", name: "weather", args: { location: "San Francisco" } }],
    usage: { inputTokens: 295, outputTokens: 22, cachedInputTokens: 0 },
    finish: "tool_calls",
  }),
  "openai-compatible/glm-incremental-tool-call-empty-name.chunks.jsonl": stream({
    api: "openai",
    calls: [{ id: "chatcmpl-tool-9f149c74c42f265b", name: "webSearchTool", args: { query: "current Berlin weather" } }],
    usage: { inputTokens: 171, outputTokens: 14, cachedInputTokens: 128 },
    finish: "tool_calls",
  }),
  "openai-compatible/xai-grok-reasoning-tool-call.chunks.jsonl": stream({
    api: "openai",
    thinking: [{ text: "First, the user is" }],
    calls: [{ id: "call_55117580", name: "weather", args: { location: "San Francisco" } }],
    usage: { inputTokens: 291, outputTokens: 222, cachedInputTokens: 290, reasoningTokens: 196 },
    finish: "tool_calls",
    note: "xAI: completion_tokens (26) excludes the 196 reasoning tokens; total 513 - prompt 291 = 222 output tokens",
  }),
  "openai-compatible/deepseek-reasoner-tool-call.chunks.jsonl": stream({
    api: "openai",
    thinking: [
      {
        text: 'The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".',
      },
    ],
    calls: [{ id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", args: { location: "San Francisco" } }],
    usage: { inputTokens: 339, outputTokens: 83, cachedInputTokens: 320, reasoningTokens: 39 },
    finish: "tool_calls",
  }),
  "openai-compatible/anthropic-via-gateway-tool-index-1.sse": stream({
    api: "openai",
    text: "Reading it.",
    calls: [{ id: "toolu_sanitized", name: "read_file", args: { path: "a.txt" } }],
    usage: null,
    finish: "tool_calls",
  }),
  "openai-compatible/groq-gpt-oss-midstream-error-event.sse": stream({
    api: "openai",
    thinking: [
      {
        text:
          'We need to call the tool with invalid parameters first, then second call with valid args. The user wants us to test error handling. So first call should have wrong parameters (e.g., missing required "name" or extra param). ' +
          'The tool expects only "name". If we send extra property, that might cause error. Or missing "name". We\'ll do a call with missing name: {}. Then second call with name: "test". Let\'s do that.',
      },
    ],
    usage: null,
    finish: null,
    error: { status: 400, message: GROQ_TOOL_FAILED, retryable: false, errorType: "tool_use_failed" },
  }),
  "openai-compatible/openrouter-keepalive-comments-error-in-chunk.sse": stream({
    api: "openai",
    thinking: [{ text: "We need to respond to a greeting. The user" }],
    usage: null,
    finish: null,
    error: { status: 400, message: "Token limit reached", retryable: false, errorType: undefined },
    note: "17 comment lines first; the error rides on a normal-looking chunk after finish_reason length",
  }),
  "openai-compatible/vllm-qwen-hermes-tool-call.sse": stream({
    api: "openai",
    calls: [{ id: "chatcmpl-tool-ca99dda515524c6abe47d1ea22813507", name: "run_command", args: { command: "ls" } }],
    usage: null,
    finish: "tool_calls",
  }),
  "openai-compatible/ollama-parallel-tool-calls.sse": stream({
    api: "openai",
    calls: [
      { id: "call_wteop8bt", name: "run_command", args: { command: "ls" } },
      { id: "call_rk2xye1l", name: "run_command", args: { command: "ls -l" } },
    ],
    usage: null,
    finish: "tool_calls",
    note: "no [DONE]: the finish_reason seen before the connection closed completes the turn",
  }),

  // ---- Anthropic Messages ----
  "anthropic/text.sse": stream({
    api: "anthropic",
    text: "Hello there!",
    usage: { inputTokens: 11, outputTokens: 6 },
    finish: "stop",
  }),
  "anthropic/text-sonnet-4-5.chunks.jsonl": stream({
    api: "anthropic",
    text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    usage: { inputTokens: 12, outputTokens: 30, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    finish: "stop",
  }),
  "anthropic/tool-use.sse": stream({
    api: "anthropic",
    text: "I'll check the current weather in Paris for you.",
    calls: [{ id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", args: { location: "Paris" } }],
    usage: { inputTokens: 377, outputTokens: 65, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    finish: "tool_calls",
  }),
  "anthropic/parallel-tool-use-3-blocks.chunks.jsonl": stream({
    api: "anthropic",
    calls: [
      { id: "toolu_01LtEf4h1QW7KCKLsYMuhTNB", name: "searchDocs", args: { query: "alpha" } },
      { id: "toolu_016tfZE7otAFSBjhc67wu189", name: "searchDocs", args: { query: "beta" } },
      { id: "toolu_01XkU35z8BVWqqc9tijDuLrA", name: "searchDocs", args: { query: "gamma" } },
    ],
    usage: { inputTokens: 798, outputTokens: 110, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    finish: "tool_calls",
  }),
  "anthropic/tool-no-args.chunks.jsonl": stream({
    api: "anthropic",
    text: "I'll update the issue list for you.",
    calls: [{ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", args: {} }],
    usage: { inputTokens: 565, outputTokens: 48, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    finish: "tool_calls",
  }),
  "anthropic/tool-use-truncated-max-tokens.sse": stream({
    api: "anthropic",
    text: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
    usage: { inputTokens: 450, outputTokens: 124, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    finish: "length",
    note: "the make_file call never got content_block_stop: not emitted (the official SDK repairs and returns it)",
  }),
  "anthropic/thinking-then-text.sse": stream({
    api: "anthropic",
    thinking: [
      {
        text: "This is a straightforward question about pedestrian safety. I should provide clear, helpful advice about how to safely cross a street. This is basic safety information that could help prevent accidents.",
        signature: THINKING_SIGNATURE,
      },
    ],
    text: CROSSING_TEXT,
    usage: { inputTokens: 43, outputTokens: 282, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    finish: "stop",
  }),
  "anthropic/redacted-thinking.sse": stream({
    api: "anthropic",
    thinking: [
      { text: "", signature: REDACTED_1, redacted: true },
      { text: "", signature: REDACTED_2, redacted: true },
    ],
    text:
      "I notice that you've sent what appears to be some kind of test string or command. I don't have any special \"magic string\" triggers or backdoor commands that would expose internal systems or change my behavior.\n\n" +
      "I'm Claude, an AI assistant created by Anthropic to be helpful, harmless, and honest. How can I assist you today with a legitimate task or question?",
    usage: { inputTokens: 92, outputTokens: 189, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    finish: "stop",
  }),
  "anthropic/message-delta-input-tokens.chunks.jsonl": stream({
    api: "anthropic",
    text: "pong",
    usage: { inputTokens: 61, outputTokens: 2 },
    finish: "stop",
    note: "message_delta's input_tokens (61) replaces message_start's (43)",
  }),

  // ---- Errors ----
  "errors/openrouter-429-upstream-rate-limit.json": {
    shape: "http-error",
    api: "openai",
    status: 429,
    error: {
      status: 429,
      message:
        "Provider returned error (google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations)",
      retryable: true,
      errorType: undefined,
    },
  },
  "errors/anthropic-404-not-found.json": {
    shape: "http-error",
    api: "anthropic",
    status: 404,
    error: { status: 404, message: "model: claude-sonet-4-5", retryable: false, errorType: "not_found_error" },
  },
  "errors/openai-404-model-not-found.json": {
    shape: "http-error",
    api: "openai",
    status: 404,
    error: {
      status: 404,
      message: "The model `gpt-5.2-proo` does not exist or you do not have access to it.",
      retryable: false,
      errorType: "model_not_found",
    },
  },
  "errors/groq-400-tool-use-failed.json": {
    shape: "http-error",
    api: "openai",
    status: 400,
    error: {
      status: 400,
      message:
        "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'foo' not allowed]",
      retryable: false,
      errorType: "tool_use_failed",
    },
  },
  "errors/anthropic-529-overloaded-body.json": {
    shape: "http-error",
    api: "anthropic",
    status: 529,
    error: { status: 529, message: "Overloaded", retryable: true, errorType: "overloaded_error" },
  },
  "errors/anthropic-midstream-overloaded-error.sse": stream({
    api: "anthropic",
    usage: null,
    finish: null,
    error: { status: undefined, message: "Overloaded", retryable: true, errorType: "overloaded_error" },
  }),
  "errors/openai-chat-stream-error-first-chunk.sse": stream({
    api: "openai",
    usage: null,
    finish: null,
    error: {
      status: undefined,
      message:
        "The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error.",
      retryable: true,
      errorType: "server_error",
    },
  }),

  // ---- OpenAI Responses (SSE parser only) ----
  "openai-responses/function-call-gpt-4o.sse": {
    shape: "responses",
    events: 11,
    counts: { "response.function_call_arguments.delta": 5, "response.output_item.done": 1 },
    terminal: { type: "response.completed", status: "completed" },
    calls: [{ name: "get_capital", arguments: '{"country":"France"}' }],
    outputText: "",
    adapter: {
      text: "",
      thinking: { length: 0, items: 0 },
      calls: [{ id: "call_kL0PCQV7M2WMoVX8V8OtYSAL", name: "get_capital", args: { country: "France" } }],
      usage: { inputTokens: 255, outputTokens: 16, cachedInputTokens: 0, reasoningTokens: 0 },
      finish: "tool_calls",
    },
  },
  "openai-responses/text-gpt-4o.sse": {
    shape: "responses",
    events: 15,
    counts: { "response.output_text.delta": 7 },
    terminal: { type: "response.completed", status: "completed" },
    calls: [],
    outputText: "The capital of France is Paris.",
    adapter: {
      text: "The capital of France is Paris.",
      thinking: { length: 0, items: 0 },
      calls: [],
      usage: { inputTokens: 278, outputTokens: 9, cachedInputTokens: 0, reasoningTokens: 0 },
      finish: "stop",
    },
  },
  "openai-responses/error-insufficient-quota.chunks.jsonl": {
    shape: "responses",
    events: 4,
    counts: { error: 1, "response.failed": 1 },
    terminal: { type: "response.failed", status: "failed" },
    calls: [],
    outputText: "",
    adapter: {
      text: "",
      thinking: { length: 0, items: 0 },
      calls: [],
      usage: null,
      finish: null,
      error: {
        status: undefined,
        message:
          "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        retryable: false,
        errorType: "insufficient_quota",
      },
    },
  },
  "openai-responses/deepseek-reasoning-then-function-call.sse": {
    shape: "responses",
    events: 34,
    counts: { "response.reasoning_text.delta": 14, "response.function_call_arguments.delta": 9 },
    terminal: { type: "response.completed", status: "completed" },
    calls: [{ name: "get_temperature", arguments: '{"city": "Tokyo"}' }],
    outputText: "",
    adapter: {
      text: "",
      thinking: { length: "The user asks about temperature in Tokyo. I'll call the tool.".length, items: 1 },
      calls: [{ id: "call_00_xjY8Z2BvSlzgEmmw0DtH0464", name: "get_temperature", args: { city: "Tokyo" } }],
      usage: { inputTokens: 366, outputTokens: 59, cachedInputTokens: 256, reasoningTokens: 14 },
      finish: "tool_calls",
    },
  },
  "openai-responses/lmstudio-tool-call.chunks.jsonl": {
    shape: "responses",
    events: 77,
    counts: {
      "response.reasoning_text.delta": 48,
      "response.output_text.delta": 13,
      "response.function_call_arguments.delta": 0,
    },
    terminal: { type: "response.completed", status: "completed" },
    calls: [{ name: "weather", arguments: '{"location":"San Francisco"}' }],
    outputText: { length: 67 },
    adapter: {
      text: "I'll get the current weather information for San Francisco for you.",
      thinking: { length: 242, items: 1 },
      calls: [{ id: "call_2025306790300011", name: "weather", args: { location: "San Francisco" } }],
      usage: { inputTokens: 182, outputTokens: 61, cachedInputTokens: 2, reasoningTokens: 48 },
      finish: "tool_calls",
    },
  },
  "openai-responses/azure-gpt-5-reasoning-summary.chunks.jsonl": {
    shape: "responses",
    events: 1406,
    counts: {
      "response.reasoning_summary_text.delta": 282,
      "response.output_text.delta": 1105,
      "response.reasoning_summary_part.added": 3,
    },
    terminal: { type: "response.completed", status: "completed" },
    calls: [],
    outputText: { length: 1105 },
    adapter: {
      text: { length: 1105 },
      // 627 characters of summary deltas in three parts, joined by two blank lines.
      thinking: { length: 631, items: 1 },
      calls: [],
      usage: { inputTokens: 12044, outputTokens: 1627, cachedInputTokens: 0, reasoningTokens: 516 },
      finish: "stop",
    },
  },
  "openai-responses/bedrock-data-before-event-line.sse": {
    shape: "responses",
    events: 7,
    counts: { "response.function_call_arguments.delta": 1 },
    terminal: { type: "response.completed", status: "completed" },
    calls: [{ name: "first_tool", arguments: "{}" }],
    outputText: "",
    adapter: {
      text: "",
      thinking: { length: 0, items: 0 },
      calls: [{ id: "call_0", name: "first_tool", args: {} }],
      usage: { inputTokens: 88, outputTokens: 14, cachedInputTokens: 0, reasoningTokens: 0 },
      finish: "tool_calls",
    },
  },
};

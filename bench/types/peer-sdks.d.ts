/**
 * Type-only stand-ins for the peer SDKs the benchmark compares against (`openai`,
 * `@openai/agents`, `@mariozechner/pi-agent-core`, `@mariozechner/pi-ai`). They are installed into
 * bench/node_modules only by `npm run bench`, and the root's `npm run typecheck` must check every
 * bench file without them. Each declares only what our adapters use, in the SDK's own shapes, so
 * our code is checked against them; `npm run typecheck` in bench/ (tsconfig.sdks.json, without
 * this file) checks the same adapters against the installed SDKs' real declarations.
 */

declare module "openai" {
  interface ChatCompletionChunk {
    choices: { delta?: { content?: string | null } }[];
  }
  interface ChunkStream extends AsyncIterable<ChatCompletionChunk> {
    controller: AbortController;
  }
  interface ChatCompletionStream {
    on(event: "content", listener: (delta: string, snapshot: string) => void): this;
    finalChatCompletion(): Promise<unknown>;
  }
  interface ChatCompletionBody {
    model: string;
    messages: { role: "user" | "assistant" | "system"; content: string }[];
    stream_options?: { include_usage?: boolean };
  }
  export default class OpenAI {
    constructor(options: { baseURL?: string; apiKey?: string; maxRetries?: number });
    chat: {
      completions: {
        create(body: ChatCompletionBody & { stream: true }): Promise<ChunkStream>;
        stream(body: ChatCompletionBody): ChatCompletionStream;
      };
    };
  }
}

declare module "@openai/agents" {
  import type { z } from "zod";

  export type AgentOutputItem =
    | { type: "function_call"; id?: string; callId: string; name: string; arguments: string; status?: "completed" }
    | {
        type: "message";
        id?: string;
        role: "assistant";
        status: "completed" | "in_progress";
        content: { type: "output_text"; text: string }[];
      };
  export type ModelRequest = Record<string, unknown>;
  export class Usage {
    constructor(input?: { requests?: number; inputTokens?: number; outputTokens?: number; totalTokens?: number });
    requests: number;
    inputTokens: number;
    outputTokens: number;
    totalTokens: number;
    add(other: Usage): void;
  }
  export interface ModelResponse {
    usage: Usage;
    output: AgentOutputItem[];
    responseId?: string;
  }
  export type StreamEvent =
    | { type: "response_started" }
    | { type: "output_text_delta"; delta: string }
    | { type: "response_done"; response: { id: string; usage: Usage; output: AgentOutputItem[] } };
  export interface Model {
    getResponse(request: ModelRequest): Promise<ModelResponse>;
    getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent>;
  }
  export interface FunctionTool {
    type: "function";
    name: string;
  }
  export function tool<P extends z.ZodObject>(options: {
    name: string;
    description: string;
    parameters: P;
    execute: (input: z.infer<P>) => Promise<unknown>;
  }): FunctionTool;
  export class Agent {
    constructor(options: { name: string; instructions: string; model: Model; tools: FunctionTool[] });
  }
  export type RunStreamEvent =
    | { type: "run_item_stream_event"; name: string }
    | { type: "raw_model_stream_event"; data: StreamEvent }
    | { type: "agent_updated_stream_event" };
  export interface RunResult {
    finalOutput?: unknown;
  }
  export interface StreamedRunResult extends RunResult, AsyncIterable<RunStreamEvent> {
    completed: Promise<void>;
  }
  export function run(
    agent: Agent,
    input: string,
    options: { stream: true; maxTurns?: number },
  ): Promise<StreamedRunResult>;
  export function run(agent: Agent, input: string, options?: { stream?: false; maxTurns?: number }): Promise<RunResult>;
  export type AgentInputItem = { role: "user" | "assistant"; content: unknown };
  export function user(text: string): AgentInputItem;
  export function assistant(text: string): AgentInputItem;
  export class MemorySession {
    constructor(options?: { sessionId?: string });
    addItems(items: AgentInputItem[]): Promise<void>;
  }
  export function setTracingDisabled(disabled: boolean): void;
}

declare module "@mariozechner/pi-ai" {
  export interface TSchema {
    readonly static?: unknown;
  }
  export interface TString extends TSchema {
    readonly static?: string;
  }
  export interface TNumber extends TSchema {
    readonly static?: number;
  }
  export interface TObject<P extends Record<string, TSchema>> extends TSchema {
    readonly static?: { [K in keyof P]: Static<P[K]> };
  }
  export type Static<T extends TSchema> = NonNullable<T["static"]>;
  export const Type: {
    Object<P extends Record<string, TSchema>>(properties: P): TObject<P>;
    String(): TString;
    Number(): TNumber;
  };

  export interface Model<Api extends string = string> {
    id: string;
    name: string;
    api: Api;
    provider: string;
    baseUrl: string;
    reasoning: boolean;
    input: ("text" | "image")[];
    cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
    contextWindow: number;
    maxTokens: number;
  }
  export interface Usage {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    totalTokens: number;
    cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  }
  export interface TextContent {
    type: "text";
    text: string;
  }
  export interface ToolCall {
    type: "toolCall";
    id: string;
    name: string;
    arguments: Record<string, unknown>;
  }
  export interface UserMessage {
    role: "user";
    content: string | TextContent[];
    timestamp: number;
  }
  export interface AssistantMessage {
    role: "assistant";
    content: (TextContent | ToolCall)[];
    api: string;
    provider: string;
    model: string;
    usage: Usage;
    stopReason: "stop" | "length" | "toolUse" | "error" | "aborted";
    errorMessage?: string;
    timestamp: number;
  }
  export interface ToolResultMessage {
    role: "toolResult";
    toolCallId: string;
    toolName: string;
    content: TextContent[];
    isError: boolean;
    timestamp: number;
  }
  export type Message = UserMessage | AssistantMessage | ToolResultMessage;
  export type AssistantMessageEvent =
    | { type: "start"; partial: AssistantMessage }
    | { type: "text_start" | "toolcall_start"; contentIndex: number; partial: AssistantMessage }
    | { type: "text_delta" | "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
    | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
    | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
    | { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
    | { type: "error"; reason: "aborted" | "error"; error: AssistantMessage };
  export class EventStream<T, R = T> implements AsyncIterable<T> {
    constructor(isComplete: (event: T) => boolean, extractResult: (event: T) => R);
    push(event: T): void;
    end(result?: R): void;
    result(): Promise<R>;
    [Symbol.asyncIterator](): AsyncIterator<T>;
  }
}

declare module "@mariozechner/pi-agent-core" {
  import type {
    AssistantMessage,
    AssistantMessageEvent,
    EventStream,
    Message,
    Model,
    Static,
    TextContent,
    TSchema,
  } from "@mariozechner/pi-ai";

  export type AgentMessage = Message;
  export interface AgentTool<P extends TSchema = TSchema> {
    name: string;
    label: string;
    description: string;
    parameters: P;
    execute(
      toolCallId: string,
      params: Static<P>,
      signal?: AbortSignal,
    ): Promise<{ content: TextContent[]; details: unknown }>;
  }
  export interface AgentContext {
    systemPrompt: string;
    messages: AgentMessage[];
    tools?: AgentTool<any>[];
  }
  export interface AgentLoopConfig {
    model: Model<any>;
    convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  }
  export type StreamFn = (
    model: Model<any>,
    context: unknown,
    options?: unknown,
  ) =>
    | EventStream<AssistantMessageEvent, AssistantMessage>
    | Promise<EventStream<AssistantMessageEvent, AssistantMessage>>;
  export type AgentEvent =
    | { type: "message_update"; message: AgentMessage; assistantMessageEvent: AssistantMessageEvent }
    | {
        type:
          | "agent_start"
          | "agent_end"
          | "turn_start"
          | "turn_end"
          | "message_start"
          | "message_end"
          | "tool_execution_start"
          | "tool_execution_update"
          | "tool_execution_end";
      };
  export function agentLoop(
    prompts: AgentMessage[],
    context: AgentContext,
    config: AgentLoopConfig,
    signal?: AbortSignal,
    streamFn?: StreamFn,
  ): EventStream<AgentEvent, AgentMessage[]>;
  export class Agent {
    constructor(options: {
      initialState?: { systemPrompt?: string; model?: Model<any>; tools?: AgentTool<any>[]; messages?: AgentMessage[] };
      streamFn?: StreamFn;
    });
    readonly state: { messages: AgentMessage[]; errorMessage?: string };
    prompt(input: string): Promise<void>;
  }
}

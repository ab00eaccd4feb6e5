import type { JsonSchema } from "./json-schema.js";
import type { Message } from "./message.js";

/** A tool as offered to the model: just its name, description and argument schema. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/**
 * Who is asking: the agent, session, run and level a model request comes from. Known to the
 * process only: providers never send it on the wire. Fake scripts and test doubles route on it
 * (`request.caller?.agentId === "todo"`, `request.caller?.depth > 0`) instead of reading prompts.
 */
export interface ModelCaller {
  /** The agent whose turn this is (the runtime; the bare loop when given `agentId`). */
  agentId?: string;
  /** The session of the turn (the runtime; the bare loop when given `sessionId`). */
  sessionId?: string;
  /** The turn's run id (the runtime; the bare loop when given `runId`). */
  runId?: string;
  /** 0 at the root, 1 in a sub-task, and so on. */
  depth: number;
  /** The `toolCallId` of the enclosing `run_subtask` (null at the root). */
  parentId: string | null;
  /** The session's role for the turn (`"planner"`, `"actor"`, a host role), when it has one. */
  role?: string;
  /** The `title` the model gave the sub-task (sub-tasks only). */
  subtaskTitle?: string;
  /**
   * Set on a request the runtime makes for itself rather than for a step of the turn:
   * `"compaction"` for the summary that replaces a session's older turns (see `CompactionOptions`).
   * @default undefined (a step of the turn)
   */
  purpose?: "compaction";
}

/** One request to a model. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ModelTool[];
  maxOutputTokens?: number;
  temperature?: number;
  /** Passed through to the adapter unchanged (vendor-specific knobs). */
  providerOptions?: Record<string, unknown>;
  /** Who is asking, as known (see {@link ModelCaller}). Never sent to the vendor. */
  caller?: ModelCaller;
  /**
   * Whether and which tool the model must call: `"auto"` (it decides), `"required"` (some tool),
   * `"none"` (no tool), or `{ name }` (that tool, by its defined name; the adapter maps it to the
   * wire name). Set by a `prepareStep` hook. Every adapter sends it in the vendor's own form.
   * @default undefined (the vendor's default, which is "auto" when tools are offered)
   */
  toolChoice?: ToolChoice;
}

/** How a model request constrains tool use (see {@link ModelRequest.toolChoice}). */
export type ToolChoice = "auto" | "required" | "none" | { name: string };

/** Why the model stopped. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

/**
 * What a provider stream yields.
 *
 * - `thinking_delta`: reasoning text. A delta that carries a `signature` (Anthropic; its `text`
 *   is usually `""`) closes the current thinking block: the next thinking delta starts a new one.
 *   A redacted block arrives as one delta with `redacted: true`, `text: ""` and the opaque data
 *   as `signature`. Keep both in a `ThinkingPart` so the adapter can send them back unchanged.
 *   A delta with `providerMetadata` (plain JSON) closes the block too and is kept on the part
 *   (the Responses API's reasoning item).
 * - `tool_call_start` / `tool_call_delta` (optional: a provider that does not stream arguments
 *   sends only `tool_call`): a call being streamed. `tool_call_start` comes once, when the call's
 *   name is known, with the defined tool name (mapped back from the wire) and the `id` its
 *   complete `tool_call` will carry; each `tool_call_delta` is the next piece of its arguments'
 *   JSON text as the model writes it (not valid JSON on its own). They are for display only: the
 *   complete `tool_call` is the one that counts, and a call that never completes (cut off, the
 *   stream failed) gets none. Calls may interleave (by `id`); a delta of an id with no open start
 *   is ignored by the loop.
 * - `tool_call`: one per complete call; `args` is the parsed JSON, or the raw string when the
 *   model sent invalid JSON (the loop's schema validation reports it to the model). The loop
 *   keeps `args` as a plain JSON copy; arguments nested deeper than 64 levels, holding more than
 *   1,000,000 values, or that throw when read become an error result for that call, and only a
 *   short placeholder of them is kept.
 * - `usage`: `inputTokens` counts all input, cached included; `cachedInputTokens` (cache reads)
 *   and `cacheWriteInputTokens` (cache writes) are parts of it.
 */
export type ModelEvent =
  | { type: "text_delta"; text: string }
  | {
      type: "thinking_delta";
      text: string;
      signature?: string;
      redacted?: boolean;
      providerMetadata?: Record<string, unknown>;
    }
  | { type: "tool_call_start"; id: string; name: string }
  | { type: "tool_call_delta"; id: string; argsDelta: string }
  | { type: "tool_call"; id: string; name: string; args: unknown }
  | {
      type: "usage";
      inputTokens: number;
      outputTokens: number;
      cachedInputTokens?: number;
      cacheWriteInputTokens?: number;
      /** The reasoning tokens among `outputTokens`, when the provider reports them. */
      reasoningTokens?: number;
    }
  | {
      /**
       * A note about the request: something the vendor's API does not take was left out (a
       * setting it no longer accepts). The loop emits it as a `warning` event (bounded). Optional
       * for providers, at any point of the stream.
       */
      type: "warning";
      code: string;
      message: string;
    }
  | {
      type: "finish";
      reason: FinishReason;
      /** Tools the backend ran by itself during this response (CLI agents); absent for plain model APIs. */
      toolCallCount?: number;
    };

/**
 * A model backend.
 *
 * `stream()` yields deltas (text, thinking, and optionally the arguments of calls being streamed)
 * and complete `tool_call`s as they arrive, at most one `usage` (that response's totals), then
 * exactly one `finish`, last. On abort it rejects promptly with an error named `AbortError` and
 * yields no `finish`. Failures are `ProviderError`s.
 *
 * `request` is read-only: its messages are the caller's history (the runtime keeps them between
 * turns), so a provider that needs to rewrite them works on copies.
 */
export interface Provider {
  readonly id: string;
  stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelEvent>;
}

/** Prices per million tokens for one model. */
export interface ModelPricing {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Price of cached input tokens; defaults to `inputPerMillion`. */
  cachedInputPerMillion?: number;
}

/** Prices keyed by model name. */
export type PricingTable = Record<string, ModelPricing>;

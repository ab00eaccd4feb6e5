import { ProviderError } from "../errors/errors.js";
import { droppedArgsText, readOutsideJson } from "../internal/outside-json.js";
import type { OutputLimit } from "../providers/output-limit.js";
import { parseToolArgs } from "../providers/parse-tool-args.js";
import type { FinishReason, ModelEvent } from "../contracts/provider.js";
import type { AiSdkSpecificationVersion, AiSdkStreamPart } from "./ai-sdk-types.js";
import { providerErrorFromAiSdk } from "./provider-error-from-ai-sdk.js";

/**
 * Turns AI SDK stream parts into Agentry model events, for one response.
 *
 * - `text-delta` → `text_delta`; `reasoning-delta` → `thinking_delta`. A thinking signature
 *   (`providerMetadata.<provider>.signature`, Anthropic's `signature_delta`) comes out as a
 *   `thinking_delta` with `signature`, closing the block; a redacted block (`redactedData` on
 *   `reasoning-start`) as one `thinking_delta` with `redacted: true` and the data as `signature`.
 * - `tool-call` → `tool_call` with the JSON input parsed (invalid JSON passes as the raw string,
 *   for the loop's validation to report); calls the provider ran itself (`providerExecuted`) are
 *   not Agentry's to run and are skipped. A call's streamed input (`tool-input-start`, then
 *   `tool-input-delta`s, keyed by `id`: the `toolCallId` of its `tool-call`) comes out as
 *   `tool_call_start` and `tool_call_delta`s; a start without an id or a tool name, or of a
 *   provider-executed call, is not streamed.
 *   An input object is copied as plain JSON, as tool results are: one nested deeper than 64
 *   levels, or that throws when read (a Proxy trap, a getter), is replaced by the placeholder the
 *   loop refuses with an error result for that call; the value itself goes no further.
 * - `finish` → at most one `usage` (V2: flat numbers; V3/V4: `{ total, noCache, cacheRead,
 *   cacheWrite }` objects) and the `finish`, emitted when the stream ends. The reason is
 *   `tool_calls` whenever calls were emitted (unless cut by `length` or a content filter).
 *   `finish` is the end of the response: `finished` turns true and later parts are ignored.
 * - `error` → a `ProviderError` thrown at once, even after output.
 * - A stream that ends without `finish` throws a retryable `ProviderError` (a dropped connection).
 * - Size: the characters of every delta (text, reasoning, tool input) and of each tool-call input
 *   count toward `maxResponseChars`; text and tool-call inputs also toward `output` (the
 *   `maxOutputTokens` check). Past either, a non-retryable `ProviderError` is thrown
 *   (`response_too_large`, `output_too_large`).
 */
export function createAiSdkStreamReader(init: {
  provider: string;
  version: AiSdkSpecificationVersion;
  generateId: () => string;
  maxResponseChars?: number;
  output?: OutputLimit;
}) {
  const { provider, version, output } = init;
  const maxResponseChars = init.maxResponseChars ?? Number.POSITIVE_INFINITY;
  let responseChars = 0;
  /** Counts `chars` characters of the response; throws past `maxResponseChars`. */
  const count = (chars: number) => {
    responseChars += chars;
    if (responseChars > maxResponseChars) {
      throw new ProviderError(
        `The model's response exceeded maxResponseBytes (${maxResponseChars} characters of deltas): it was cancelled. ` +
          `Raise fromAiSdk's maxResponseBytes option if such large responses are expected.`,
        { provider, retryable: false, errorType: "response_too_large" },
      );
    }
  };
  let finishPart: AiSdkStreamPart | undefined;
  let calls = 0;
  const signed = new Set<unknown>();
  /** The ids of the calls whose input streams (`tool-input-start` seen, no `tool-call` yet). */
  const streaming = new Set<string>();

  return {
    /** True once the `finish` part came: the response is complete. */
    get finished(): boolean {
      return finishPart !== undefined;
    },

    push(part: AiSdkStreamPart): ModelEvent[] {
      if (finishPart !== undefined) return [];
      switch (part.type) {
        case "text-delta": {
          const text = textOf(part);
          count(text.length);
          output?.add(text.length);
          return text === "" ? [] : [{ type: "text_delta", text }];
        }
        case "tool-input-start": {
          const { id, toolName: name } = part;
          if (typeof id !== "string" || id === "" || typeof name !== "string" || name === "") return [];
          if (part.providerExecuted === true || streaming.has(id)) return [];
          count(id.length + name.length); // the ids kept until their call completes count as the response
          streaming.add(id);
          return [{ type: "tool_call_start", id, name }];
        }
        case "tool-input-delta": {
          const delta = textOf(part);
          count(delta.length);
          const id = part.id;
          return typeof id === "string" && streaming.has(id) && delta !== ""
            ? [{ type: "tool_call_delta", id, argsDelta: delta }]
            : [];
        }
        case "reasoning-start": {
          const redacted = metadataString(part.providerMetadata, "redactedData");
          if (redacted === undefined) return [];
          signed.add(part.id);
          return [{ type: "thinking_delta", text: "", signature: redacted, redacted: true }];
        }
        case "reasoning-delta": {
          const text = textOf(part);
          count(text.length);
          const signature = metadataString(part.providerMetadata, "signature");
          if (signature !== undefined) {
            signed.add(part.id);
            return [{ type: "thinking_delta", text, signature }];
          }
          return text === "" ? [] : [{ type: "thinking_delta", text }];
        }
        case "reasoning-end": {
          // Some providers put the signature on the end part instead of a delta.
          const signature = metadataString(part.providerMetadata, "signature");
          if (signature === undefined || signed.has(part.id)) return [];
          signed.add(part.id);
          return [{ type: "thinking_delta", text: "", signature }];
        }
        case "tool-call": {
          if (part.providerExecuted === true) return [];
          const id =
            typeof part.toolCallId === "string" && part.toolCallId !== "" ? part.toolCallId : init.generateId();
          streaming.delete(id);
          const name = typeof part.toolName === "string" ? part.toolName : "";
          const { args, chars } = toolInput(part.input);
          count(chars);
          output?.add(chars);
          calls++;
          return [{ type: "tool_call", id, name, args }];
        }
        case "finish":
          finishPart = part;
          return [];
        case "error":
          throw providerErrorFromAiSdk(part.error, provider);
        default:
          // stream-start, response-metadata, text-start/-end, tool-input-end, source, file, raw, ping, ...
          return [];
      }
    },

    end(): ModelEvent[] {
      if (finishPart === undefined) {
        throw new ProviderError("The stream ended before the response was complete (no finish part)", {
          provider,
          retryable: true,
        });
      }
      const out: ModelEvent[] = [];
      const usage = toUsage(finishPart.usage, version);
      if (usage) out.push(usage);
      out.push({ type: "finish", reason: finishReason(finishPart.finishReason, version, calls) });
      return out;
    },
  };
}

/**
 * A tool call's input as `tool_call` args, and its size in characters: JSON text parsed (see
 * `parseToolArgs`), an object copied as plain JSON, or the placeholder for one that cannot be.
 */
function toolInput(input: unknown): { args: unknown; chars: number } {
  if (typeof input === "string") return { args: parseToolArgs(input), chars: input.length };
  if (input === undefined || input === null) return { args: {}, chars: 2 };
  const read = readOutsideJson(input);
  if (!read.ok) {
    const text = droppedArgsText(read.problem);
    return { args: text, chars: text.length };
  }
  return { args: read.value ?? {}, chars: JSON.stringify(read.value)?.length ?? 2 };
}

function textOf(part: AiSdkStreamPart): string {
  return typeof part.delta === "string" ? part.delta : "";
}

/** A string field of any provider's metadata (`{ anthropic: { signature } }`, `{ bedrock: { signature } }`, ...). */
function metadataString(metadata: unknown, field: string): string | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  for (const value of Object.values(metadata)) {
    if (typeof value === "object" && value !== null) {
      const found = (value as Record<string, unknown>)[field];
      if (typeof found === "string") return found;
    }
  }
  return undefined;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

function toUsage(usage: unknown, version: AiSdkSpecificationVersion): ModelEvent | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, any>;
  let input: number | undefined;
  let output: number | undefined;
  let cacheRead: number | undefined;
  let cacheWrite: number | undefined;
  let reasoning: number | undefined;
  if (version === "v2") {
    input = count(u.inputTokens);
    output = count(u.outputTokens);
    cacheRead = count(u.cachedInputTokens);
    reasoning = count(u.reasoningTokens);
  } else {
    const inTokens = (u.inputTokens ?? {}) as Record<string, unknown>;
    const outTokens = (u.outputTokens ?? {}) as Record<string, unknown>;
    cacheRead = count(inTokens.cacheRead);
    cacheWrite = count(inTokens.cacheWrite);
    const noCache = count(inTokens.noCache);
    input =
      count(inTokens.total) ?? (noCache === undefined ? undefined : noCache + (cacheRead ?? 0) + (cacheWrite ?? 0));
    reasoning = count(outTokens.reasoning);
    output =
      count(outTokens.total) ??
      (count(outTokens.text) === undefined ? undefined : count(outTokens.text)! + (reasoning ?? 0));
  }
  if (input === undefined && output === undefined) return undefined;
  return {
    type: "usage",
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    ...(cacheRead !== undefined && { cachedInputTokens: cacheRead }),
    ...(cacheWrite !== undefined && cacheWrite > 0 && { cacheWriteInputTokens: cacheWrite }),
    ...(reasoning !== undefined && reasoning > 0 && { reasoningTokens: reasoning }),
  };
}

function finishReason(reason: unknown, version: AiSdkSpecificationVersion, calls: number): FinishReason {
  // V2: a string; V3 and V4: { unified, raw }.
  const unified =
    version === "v2"
      ? reason
      : typeof reason === "object" && reason !== null
        ? (reason as { unified?: unknown }).unified
        : undefined;
  if (unified === "length") return "length";
  if (unified === "content-filter") return "content_filter";
  if (calls > 0) return "tool_calls";
  if (unified === "stop" || unified === undefined) return "stop";
  return "other";
}

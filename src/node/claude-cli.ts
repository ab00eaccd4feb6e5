/// <reference types="node" />
import type { Provider } from "../contracts/provider.js";
import { arrayField, asRecord, countField, recordField, stringField } from "../internal/wire-guards.js";
import { createMessageJoiner, parseJsonLine, type CliOutputEvent, type CliOutputParser } from "./cli-output-parser.js";
import { createPresetProvider, type CliPresetOptions } from "./cli-preset-options.js";

/**
 * Claude Code as a provider: `claude -p <prompt> --output-format stream-json --verbose` (plus
 * `--model` when set). Assistant text is streamed, thinking becomes `thinking_delta`, each
 * `tool_use` it runs is counted, the final `result` line gives usage (and fails the stream when it
 * says `is_error`). With `--include-partial-messages` in `extraArgs`, text arrives token by token.
 *
 * @example
 * const provider = claudeCli({ extraArgs: ["--permission-mode", "acceptEdits"], cwd: "/repo" });
 */
export function claudeCli(options: CliPresetOptions = {}): Provider {
  return createPresetProvider(
    {
      id: "claude-cli",
      command: "claude",
      args: (prompt, tail) => ["-p", prompt, "--output-format", "stream-json", "--verbose", ...tail],
      parse: createClaudeOutputParser,
    },
    options,
  );
}

/** Parses Claude Code's `stream-json` lines (`system`, `assistant`, `user`, `stream_event`, `result`). */
export function createClaudeOutputParser(): CliOutputParser {
  const joiner = createMessageJoiner();
  let partial = false;
  return {
    line(line) {
      const value = parseJsonLine(line);
      if (!value) return [];
      const out: CliOutputEvent[] = [];
      if (value.type === "stream_event") {
        const event = recordField(value, "event");
        const delta = recordField(event, "delta");
        if (event?.type === "message_start") joiner.nextMessage();
        if (event?.type === "content_block_delta" && delta?.type === "text_delta") {
          partial = true;
          out.push(...joiner.text(stringField(delta, "text") ?? ""));
        }
        if (event?.type === "content_block_delta" && delta?.type === "thinking_delta") {
          out.push({ type: "thinking_delta", text: stringField(delta, "thinking") ?? "" });
        }
      } else if (value.type === "assistant") {
        if (!partial) joiner.nextMessage();
        for (const item of arrayField(recordField(value, "message"), "content") ?? []) {
          const block = asRecord(item);
          if (block?.type === "text" && !partial) out.push(...joiner.text(stringField(block, "text") ?? ""));
          else if (block?.type === "thinking" && !partial)
            out.push({ type: "thinking_delta", text: stringField(block, "thinking") ?? "" });
          else if (block?.type === "tool_use") out.push({ type: "tool_use", name: stringField(block, "name") ?? "" });
        }
      } else if (value.type === "result") {
        const result = stringField(value, "result");
        if (!joiner.wroteText && result !== undefined) out.push(...joiner.text(result));
        const usage = recordField(value, "usage");
        if (usage) {
          const read = countField(usage, "cache_read_input_tokens") ?? 0;
          const write = countField(usage, "cache_creation_input_tokens") ?? 0;
          const input = countField(usage, "input_tokens") ?? 0;
          out.push({
            type: "usage",
            inputTokens: input + read + write,
            outputTokens: countField(usage, "output_tokens") ?? 0,
            cachedInputTokens: read,
          });
        }
        if (value.is_error === true) {
          out.push({ type: "error", message: result || (stringField(value, "subtype") ?? "error") });
        }
      }
      return out.filter((event) => event.type !== "thinking_delta" || event.text !== "");
    },
  };
}

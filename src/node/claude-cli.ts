/// <reference types="node" />
import type { Provider } from "../providers/provider.js";
import { createMessageJoiner, parseJsonLine, type CliOutputEvent, type CliOutputParser } from "./cli-output-parser.js";
import { modelAndExtraArgs, presetProcessOptions, type CliPresetOptions } from "./cli-preset-options.js";
import { createCliProvider } from "./create-cli-provider.js";

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
  return createCliProvider({
    id: options.id ?? "claude-cli",
    command: options.command ?? "claude",
    args:
      options.args ??
      (({ prompt }) => [
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        ...modelAndExtraArgs(options),
      ]),
    parse: createClaudeOutputParser,
    ...presetProcessOptions(options),
  });
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
        const event = value.event ?? {};
        if (event.type === "message_start") joiner.nextMessage();
        if (event.type === "content_block_delta" && event.delta?.type === "text_delta") {
          partial = true;
          out.push(...joiner.text(String(event.delta.text ?? "")));
        }
        if (event.type === "content_block_delta" && event.delta?.type === "thinking_delta") {
          out.push({ type: "thinking_delta", text: String(event.delta.thinking ?? "") });
        }
      } else if (value.type === "assistant") {
        if (!partial) joiner.nextMessage();
        for (const block of (value.message?.content ?? []) as any[]) {
          if (block?.type === "text" && !partial) out.push(...joiner.text(String(block.text ?? "")));
          else if (block?.type === "thinking" && !partial) out.push({ type: "thinking_delta", text: String(block.thinking ?? "") });
          else if (block?.type === "tool_use") out.push({ type: "tool_use", name: String(block.name ?? "") });
        }
      } else if (value.type === "result") {
        if (!joiner.wroteText && typeof value.result === "string") out.push(...joiner.text(value.result));
        const usage = value.usage;
        if (usage && typeof usage === "object") {
          const read = Number(usage.cache_read_input_tokens ?? 0);
          const write = Number(usage.cache_creation_input_tokens ?? 0);
          out.push({ type: "usage", inputTokens: Number(usage.input_tokens ?? 0) + read + write, outputTokens: Number(usage.output_tokens ?? 0), cachedInputTokens: read });
        }
        if (value.is_error === true) {
          out.push({ type: "error", message: typeof value.result === "string" && value.result ? value.result : String(value.subtype ?? "error") });
        }
      }
      return out.filter((event) => event.type !== "thinking_delta" || event.text !== "");
    },
  };
}

/// <reference types="node" />
import type { Provider } from "../providers/provider.js";
import { createMessageJoiner, parseJsonLine, type CliOutputEvent, type CliOutputParser } from "./cli-output-parser.js";
import { modelAndExtraArgs, presetProcessOptions, type CliPresetOptions } from "./cli-preset-options.js";
import { createCliProvider } from "./create-cli-provider.js";

/**
 * The pi coding agent as a provider: `pi --mode json [--model m] -p <prompt>`. Text and thinking
 * deltas of `message_update` events are streamed, `tool_execution_start` events are counted, and
 * the usage of every assistant `message_end` is summed; an assistant message that stopped with an
 * error fails the stream.
 *
 * @example
 * const provider = piCli({ model: "claude-sonnet-4-5", cwd: "/repo" });
 */
export function piCli(options: CliPresetOptions = {}): Provider {
  return createCliProvider({
    id: options.id ?? "pi-cli",
    command: options.command ?? "pi",
    args:
      options.args ??
      (({ prompt }) => ["--mode", "json", ...modelAndExtraArgs(options), "-p", prompt]),
    parse: createPiOutputParser,
    ...presetProcessOptions(options),
  });
}

/** Parses `pi --mode json` events (`message_start`, `message_update`, `message_end`, `tool_execution_*`, ...). */
export function createPiOutputParser(): CliOutputParser {
  const joiner = createMessageJoiner();
  return {
    line(line) {
      const value = parseJsonLine(line);
      if (!value) return [];
      const out: CliOutputEvent[] = [];
      const message = value.message ?? {};
      if (value.type === "message_start" && message.role === "assistant") joiner.nextMessage();
      else if (value.type === "message_update") {
        const event = value.assistantMessageEvent ?? {};
        if (event.type === "text_delta") out.push(...joiner.text(String(event.delta ?? "")));
        else if (event.type === "thinking_delta" && typeof event.delta === "string" && event.delta !== "") {
          out.push({ type: "thinking_delta", text: event.delta });
        }
      } else if (value.type === "tool_execution_start") out.push({ type: "tool_use", name: String(value.toolName ?? "") });
      else if (value.type === "message_end" && message.role === "assistant") {
        const usage = message.usage;
        if (usage && typeof usage === "object") {
          const read = Number(usage.cacheRead ?? 0);
          const write = Number(usage.cacheWrite ?? 0);
          out.push({ type: "usage", inputTokens: Number(usage.input ?? 0) + read + write, outputTokens: Number(usage.output ?? 0), cachedInputTokens: read });
        }
        if (message.stopReason === "error" || message.stopReason === "aborted") {
          out.push({ type: "error", message: String(message.errorMessage ?? `assistant message ${String(message.stopReason)}`) });
        }
      }
      return out;
    },
  };
}

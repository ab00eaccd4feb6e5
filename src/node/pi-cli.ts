/// <reference types="node" />
import type { Provider } from "../contracts/provider.js";
import { countField, recordField, stringField } from "../internal/wire-guards.js";
import { createMessageJoiner, parseJsonLine, type CliOutputEvent, type CliOutputParser } from "./cli-output-parser.js";
import { createPresetProvider, type CliPresetOptions } from "./cli-preset-options.js";

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
  return createPresetProvider(
    {
      id: "pi-cli",
      command: "pi",
      args: (prompt, tail) => ["--mode", "json", ...tail, "-p", prompt],
      parse: createPiOutputParser,
    },
    options,
  );
}

/** Parses `pi --mode json` events (`message_start`, `message_update`, `message_end`, `tool_execution_*`, ...). */
export function createPiOutputParser(): CliOutputParser {
  const joiner = createMessageJoiner();
  return {
    line(line) {
      const value = parseJsonLine(line);
      if (!value) return [];
      const out: CliOutputEvent[] = [];
      const message = recordField(value, "message");
      if (value.type === "message_start" && message?.role === "assistant") joiner.nextMessage();
      else if (value.type === "message_update") {
        const event = recordField(value, "assistantMessageEvent");
        const delta = stringField(event, "delta");
        if (event?.type === "text_delta") out.push(...joiner.text(delta ?? ""));
        else if (event?.type === "thinking_delta" && delta) out.push({ type: "thinking_delta", text: delta });
      } else if (value.type === "tool_execution_start")
        out.push({ type: "tool_use", name: stringField(value, "toolName") ?? "" });
      else if (value.type === "message_end" && message?.role === "assistant") {
        const usage = recordField(message, "usage");
        if (usage) {
          const read = countField(usage, "cacheRead") ?? 0;
          const write = countField(usage, "cacheWrite") ?? 0;
          const input = countField(usage, "input") ?? 0;
          out.push({
            type: "usage",
            inputTokens: input + read + write,
            outputTokens: countField(usage, "output") ?? 0,
            cachedInputTokens: read,
          });
        }
        const stop = message.stopReason;
        if (stop === "error" || stop === "aborted") {
          out.push({ type: "error", message: stringField(message, "errorMessage") ?? `assistant message ${stop}` });
        }
      }
      return out;
    },
  };
}

/// <reference types="node" />
import type { Provider } from "../providers/provider.js";
import { createMessageJoiner, parseJsonLine, type CliOutputEvent, type CliOutputParser } from "./cli-output-parser.js";
import { modelAndExtraArgs, presetProcessOptions, type CliPresetOptions } from "./cli-preset-options.js";
import { createCliProvider } from "./create-cli-provider.js";

const TOOL_ITEMS = new Set(["command_execution", "file_change", "mcp_tool_call", "web_search"]);

/**
 * OpenAI Codex CLI as a provider: `codex exec --json [--model m] <prompt>`. Agent messages are
 * streamed as text, reasoning items as thinking, command executions, file changes, MCP calls and
 * web searches are counted as tool calls; `turn.completed` gives usage, `turn.failed` and `error`
 * fail the stream.
 *
 * @example
 * const provider = codexCli({ extraArgs: ["--sandbox", "workspace-write"], cwd: "/repo" });
 */
export function codexCli(options: CliPresetOptions = {}): Provider {
  return createCliProvider({
    id: options.id ?? "codex-cli",
    command: options.command ?? "codex",
    args:
      options.args ??
      (({ prompt }) => ["exec", "--json", ...modelAndExtraArgs(options), prompt]),
    parse: createCodexOutputParser,
    ...presetProcessOptions(options),
  });
}

/** Parses `codex exec --json` events (`thread.started`, `item.*`, `turn.completed`, `turn.failed`, `error`). */
export function createCodexOutputParser(): CliOutputParser {
  const joiner = createMessageJoiner();
  return {
    line(line) {
      const value = parseJsonLine(line);
      if (!value) return [];
      const out: CliOutputEvent[] = [];
      if (value.type === "item.completed") {
        const item = value.item ?? {};
        const kind = item.type ?? item.item_type;
        if (kind === "agent_message" || kind === "assistant_message") {
          joiner.nextMessage();
          out.push(...joiner.text(String(item.text ?? "")));
        } else if (kind === "reasoning" && typeof item.text === "string" && item.text !== "") {
          out.push({ type: "thinking_delta", text: item.text });
        } else if (TOOL_ITEMS.has(kind)) out.push({ type: "tool_use", name: String(kind) });
      } else if (value.type === "turn.completed" && value.usage) {
        const usage = value.usage;
        out.push({
          type: "usage",
          inputTokens: Number(usage.input_tokens ?? 0),
          outputTokens: Number(usage.output_tokens ?? 0),
          cachedInputTokens: Number(usage.cached_input_tokens ?? 0),
        });
      } else if (value.type === "turn.failed") {
        out.push({ type: "error", message: String(value.error?.message ?? "turn failed") });
      } else if (value.type === "error") {
        out.push({ type: "error", message: String(value.message ?? value.error?.message ?? "error") });
      }
      return out;
    },
  };
}

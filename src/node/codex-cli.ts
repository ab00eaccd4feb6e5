/// <reference types="node" />
import type { Provider } from "../contracts/provider.js";
import { countField, recordField, stringField } from "../internal/wire-guards.js";
import { createMessageJoiner, parseJsonLine, type CliOutputEvent, type CliOutputParser } from "./cli-output-parser.js";
import { createPresetProvider, type CliPresetOptions } from "./cli-preset-options.js";

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
  return createPresetProvider(
    {
      id: "codex-cli",
      command: "codex",
      args: (prompt, tail) => ["exec", "--json", ...tail, prompt],
      parse: createCodexOutputParser,
    },
    options,
  );
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
        const item = recordField(value, "item");
        const kind = stringField(item, "type") ?? stringField(item, "item_type");
        const text = stringField(item, "text");
        if (kind === "agent_message" || kind === "assistant_message") {
          joiner.nextMessage();
          out.push(...joiner.text(text ?? ""));
        } else if (kind === "reasoning" && text) {
          out.push({ type: "thinking_delta", text });
        } else if (kind !== undefined && TOOL_ITEMS.has(kind)) out.push({ type: "tool_use", name: kind });
      } else if (value.type === "turn.completed" && recordField(value, "usage")) {
        const usage = recordField(value, "usage");
        out.push({
          type: "usage",
          inputTokens: countField(usage, "input_tokens") ?? 0,
          outputTokens: countField(usage, "output_tokens") ?? 0,
          cachedInputTokens: countField(usage, "cached_input_tokens") ?? 0,
        });
      } else if (value.type === "turn.failed") {
        out.push({ type: "error", message: stringField(recordField(value, "error"), "message") ?? "turn failed" });
      } else if (value.type === "error") {
        out.push({
          type: "error",
          message: stringField(value, "message") ?? stringField(recordField(value, "error"), "message") ?? "error",
        });
      }
      return out;
    },
  };
}

import type { Provider } from "../contracts/provider.js";
import type { CliOutputParser } from "./cli-output-parser.js";
import { createCliProvider, type CliArgsInput } from "./create-cli-provider.js";

/** Options shared by the CLI-agent presets (`claudeCli`, `codexCli`, `piCli`). */
export interface CliPresetOptions {
  /** The provider's id. @default the preset's name ("claude-cli", "codex-cli", "pi-cli") */
  id?: string;
  /** The program to run. @default the CLI's usual binary name ("claude", "codex", "pi") */
  command?: string;
  /** Model to ask the CLI for (its `--model` flag). @default the CLI's own default */
  model?: string;
  /** Arguments added after the preset's own (e.g. `["--permission-mode", "acceptEdits"]`). @default [] */
  extraArgs?: string[];
  /** Replaces the preset's arguments entirely. @default the preset's arguments */
  args?: (input: CliArgsInput) => string[];
  /** Extra environment variables. @default {} */
  env?: Record<string, string | undefined>;
  /** Working directory of the CLI. @default the current directory */
  cwd?: string;
  /** After an abort: how long SIGTERM has before SIGKILL. @default 2000 */
  killGraceMs?: number;
}

/** What a CLI-agent preset fixes: its default id and program, its arguments and its output parser. */
export interface CliPreset {
  id: string;
  command: string;
  /** The preset's arguments, given the prompt and the shared tail (`--model` when set, then `extraArgs`). */
  args: (prompt: string, tail: string[]) => string[];
  parse: () => CliOutputParser;
}

/** A preset's provider: the preset's defaults, overridden by the host's options. */
export function createPresetProvider(preset: CliPreset, options: CliPresetOptions): Provider {
  const tail = [...(options.model ? ["--model", options.model] : []), ...(options.extraArgs ?? [])];
  return createCliProvider({
    id: options.id ?? preset.id,
    command: options.command ?? preset.command,
    args: options.args ?? (({ prompt }) => preset.args(prompt, tail)),
    parse: preset.parse,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
  });
}

import type { CliArgsInput } from "./create-cli-provider.js";

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

/** The `--model` flag (when set) followed by `extraArgs`: the tail every preset's arguments share. */
export function modelAndExtraArgs(options: CliPresetOptions): string[] {
  return [...(options.model ? ["--model", options.model] : []), ...(options.extraArgs ?? [])];
}

/** The process options a preset passes through unchanged (only those that are set). */
export function presetProcessOptions(options: CliPresetOptions): { env?: Record<string, string | undefined>; cwd?: string; killGraceMs?: number } {
  return {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
  };
}

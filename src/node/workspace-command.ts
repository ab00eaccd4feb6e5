/// <reference types="node" />
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import process from "node:process";
import { z } from "zod/v4";
import { abortError } from "../internal/abort.js";
import { timerDelay } from "../internal/timer-delay.js";
import { defineTool } from "../tools/define-tool.js";
import type { Tool } from "../tools/tool.js";
import { confineWorkspacePath, describeFsError } from "./workspace-path.js";

/** What `run_command` returns. Output streams are cut to their last bytes when long. */
export interface RunCommandResult {
  /** Exit code, or null when the process was ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  /** True when the time limit ended the process. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/** Settings of `run_command`, resolved from `WorkspaceToolsOptions`. */
export interface RunCommandSettings {
  commandAllowlist: readonly string[];
  timeoutMs: number;
  maxOutputBytes: number;
  env: Record<string, string | undefined>;
}

const KILL_GRACE_MS = 2_000;
const isWindows = process.platform === "win32";

/** Keeps the last `max` bytes of a stream. */
function createTail(max: number) {
  let chunks: Buffer[] = [];
  let held = 0;
  let total = 0;
  const last = (buffer: Buffer) => buffer.subarray(buffer.length - Math.min(max, buffer.length));
  return {
    push: (chunk: Buffer) => {
      chunks.push(chunk);
      held += chunk.length;
      total += chunk.length;
      if (held > 2 * max || max === 0) {
        chunks = [last(Buffer.concat(chunks))];
        held = max;
      }
    },
    text: () => last(Buffer.concat(chunks)).toString("utf8"),
    truncated: () => total > max,
  };
}

function runProcess(command: string, args: string[], cwd: string, settings: RunCommandSettings, timeoutMs: number, signal: AbortSignal) {
  return new Promise<RunCommandResult>((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    // Own process group on POSIX, so a kill reaches the command's children too.
    const child = spawn(command, args, { cwd, env: settings.env, shell: false, detached: !isWindows, windowsHide: true, stdio: ["ignore", "pipe", "pipe"] });
    const stdout = createTail(settings.maxOutputBytes);
    const stderr = createTail(settings.maxOutputBytes);
    child.stdout.on("data", stdout.push);
    child.stderr.on("data", stderr.push);
    let timedOut = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const kill = (killSignal: NodeJS.Signals) => {
      try {
        if (!isWindows && child.pid !== undefined) process.kill(-child.pid, killSignal);
        else child.kill(killSignal);
      } catch {
        // Already gone.
      }
    };
    const stop = () => {
      kill("SIGTERM");
      graceTimer ??= setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS);
    };
    const delay = timerDelay(timeoutMs); // over 2^31-1 ms: no limit, never "time out at once"
    const timer =
      delay === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, delay);
    signal.addEventListener("abort", stop, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal.removeEventListener("abort", stop);
    };
    child.once("error", (error) => {
      cleanup();
      const why = (error as { code?: unknown }).code === "ENOENT" ? "not found (is it installed and on PATH?)" : describeFsError(error);
      reject(new Error(`Command "${command}" could not be started: ${why}.`, { cause: error }));
    });
    child.once("close", (exitCode, exitSignal) => {
      cleanup();
      if (signal.aborted) return reject(abortError(signal));
      resolve({
        exitCode,
        signal: exitSignal,
        timedOut,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated(),
        stderrTruncated: stderr.truncated(),
      });
    });
  });
}

/** The `run_command` tool (permission class `execute`). See `createWorkspaceTools`. */
export function createRunCommandTool(settings: RunCommandSettings): Tool {
  const allowed = settings.commandAllowlist;
  const allowedText = allowed.length > 0 ? allowed.join(", ") : "none";
  return defineTool({
    name: "run_command",
    description:
      `Run a program in the workspace, without a shell: "command" is the program name only, "args" its arguments. ` +
      `Allowed commands: ${allowedText}. Returns the exit code and the end of stdout and stderr.`,
    input: z.object({
      command: z.string().min(1).describe("Program name, e.g. \"node\" (no arguments, no shell syntax)"),
      args: z.array(z.string()).default([]).describe("Arguments, one per item"),
      cwd: z.string().default(".").describe("Working directory, relative to the workspace root"),
      timeout_ms: z.number().int().positive().optional().describe(`Time limit; at most ${settings.timeoutMs}`),
    }),
    permissionClass: "execute",
    parallelSafe: false,
    exclusiveLock: "workspace_fs",
    async execute(input, ctx) {
      const { command } = input;
      if (!allowed.includes(command)) {
        const first = command.trim().split(/\s+/)[0] ?? "";
        const hint = first !== command && allowed.includes(first) ? ` Pass the arguments in "args", not in "command".` : "";
        throw new Error(`Command ${JSON.stringify(command)} is not allowed. Allowed commands: ${allowedText}.${hint}`);
      }
      const cwd = await confineWorkspacePath(ctx.policy, input.cwd ?? ".");
      const cwdStat = await stat(cwd).catch((error: unknown) => {
        throw new Error(`Cannot use ${JSON.stringify(input.cwd)} as working directory: ${describeFsError(error)}.`);
      });
      if (!cwdStat.isDirectory()) throw new Error(`Working directory ${JSON.stringify(input.cwd)} is not a directory.`);
      const timeoutMs = Math.min(input.timeout_ms ?? settings.timeoutMs, settings.timeoutMs);
      return runProcess(command, input.args ?? [], cwd, settings, timeoutMs, ctx.signal);
    },
  });
}

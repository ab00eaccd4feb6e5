/// <reference types="node" />
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import process from "node:process";
import { z } from "zod/v4";
import { abortError } from "../internal/abort.js";
import { timerDelay } from "../internal/timer-delay.js";
import { defineTool } from "../tools/define-tool.js";
import type { Tool } from "../contracts/tool.js";
import { openConfinedDirectory } from "./workspace-fs.js";
import { describeFsError, resolveConfinedPath } from "./workspace-path.js";
import { createProcessTree } from "./workspace-process-tree.js";
import { SANDBOX_SETUP_EXIT, SANDBOX_SETUP_MARK, type CommandSandbox } from "./workspace-sandbox.js";

/** What `run_command` returns. Output streams are cut to their last bytes when long. */
export interface RunCommandResult {
  /** Exit code, or null when the process was ended by a signal (or had not ended when the call returned). */
  exitCode: number | null;
  /** The signal that ended the process, or null. */
  signal: string | null;
  /**
   * True when the time limit was reached: the command, or a process it left holding its output,
   * was still running and was ended (see `createWorkspaceTools`).
   */
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
  /** Where commands run isolated; `undefined`: no sandbox. */
  sandbox?: CommandSandbox | undefined;
}

/** Time between SIGTERM and SIGKILL when a command is stopped. */
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

function runProcess(
  command: string,
  args: string[],
  cwd: string,
  settings: RunCommandSettings,
  timeoutMs: number,
  signal: AbortSignal,
) {
  return new Promise<RunCommandResult>((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    // Session and group leader on POSIX (Node calls setsid), so a kill reaches its children too.
    const child = spawn(command, args, {
      cwd,
      env: settings.env,
      shell: false,
      detached: !isWindows,
      windowsHide: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Read now, while the program has just started: how to find processes that keep its output.
    const tree = createProcessTree(child.pid);
    const stdout = createTail(settings.maxOutputBytes);
    const stderr = createTail(settings.maxOutputBytes);
    child.stdout.on("data", stdout.push);
    child.stderr.on("data", stderr.push);
    let timedOut = false;
    let stopping = false;
    let finished = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;

    const finish = (error?: Error) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      signal.removeEventListener("abort", stop);
      // Stop reading: descendants that still hold the output get EPIPE, not a reader.
      child.stdout.destroy();
      child.stderr.destroy();
      if (error !== undefined) return reject(error);
      if (signal.aborted) return reject(abortError(signal));
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated(),
        stderrTruncated: stderr.truncated(),
      });
    };
    let killing = false;
    // Windows has no process groups: there only the process itself is signalled.
    const killOnWindows = (killSignal: NodeJS.Signals) => {
      if (isWindows) child.kill(killSignal);
    };
    // Returns at once: the search for what to kill (bounded) finishes after the call returned.
    const forceEnd = () => {
      if (killing) return;
      killing = true;
      killOnWindows("SIGKILL");
      void tree.kill().catch(() => {});
      finish();
    };
    function stop() {
      if (stopping || finished) return;
      stopping = true;
      graceTimer = setTimeout(forceEnd, KILL_GRACE_MS);
      killOnWindows("SIGTERM");
      void tree.terminate().catch(() => {});
    }
    const delay = timerDelay(timeoutMs); // over 2^31-1 ms: no limit, never "time out at once"
    const timer =
      delay === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, delay);
    signal.addEventListener("abort", stop, { once: true });
    child.once("error", (error) => {
      const why =
        (error as { code?: unknown }).code === "ENOENT"
          ? "not found (is it installed and on PATH?)"
          : describeFsError(error);
      finish(new Error(`Command "${command}" could not be started: ${why}.`, { cause: error }));
    });
    child.once("exit", (code, exitSignal) => {
      exit = { code, signal: exitSignal };
    });
    // "close": exited and every holder of its output closed it. After a stop, whatever ignored
    // SIGTERM without holding the output is still killed.
    child.once("close", () => {
      if (stopping) forceEnd();
      else finish();
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
      command: z.string().min(1).describe('Program name, e.g. "node" (no arguments, no shell syntax)'),
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
        const hint =
          first !== command && allowed.includes(first) ? ` Pass the arguments in "args", not in "command".` : "";
        throw new Error(`Command ${JSON.stringify(command)} is not allowed. Allowed commands: ${allowedText}.${hint}`);
      }
      const shown = input.cwd ?? ".";
      const target = await resolveConfinedPath(ctx.policy, shown);
      const cwd = await openConfinedDirectory(target, shown);
      const timeoutMs = Math.min(input.timeout_ms ?? settings.timeoutMs, settings.timeoutMs);
      try {
        if (settings.sandbox === undefined) {
          return await runProcess(command, input.args ?? [], cwd.path, settings, timeoutMs, ctx.signal);
        }
        const wrapped = await settings.sandbox.wrap(command, input.args ?? [], target.realRoot);
        const result = await runProcess(wrapped.command, wrapped.args, cwd.path, settings, timeoutMs, ctx.signal);
        if (result.exitCode === SANDBOX_SETUP_EXIT && result.stderr.startsWith(SANDBOX_SETUP_MARK)) {
          throw new Error(
            `The command sandbox could not be set up, so "${command}" did not run: ${result.stderr.trim()}`,
          );
        }
        return result;
      } finally {
        await cwd.close();
      }
    },
  });
}

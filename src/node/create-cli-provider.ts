/// <reference types="node" />
import { spawn } from "node:child_process";
import process from "node:process";
import { ProviderError } from "../errors/errors.js";
import { abortError } from "../internal/abort.js";
import { AsyncQueue } from "../internal/async-queue.js";
import type { ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";
import { cliPrompt } from "./cli-prompt.js";
import {
  createJsonlOutputParser,
  createTextOutputParser,
  type CliOutputEvent,
  type CliOutputParser,
} from "./cli-output-parser.js";

/** What an `args` function is given. */
export interface CliArgsInput {
  request: ModelRequest;
  /** The flattened prompt (see `prompt`). */
  prompt: string;
}

/** Options of {@link createCliProvider}. */
export interface CliProviderOptions {
  /** The provider's id, e.g. `"claude-cli"`. */
  id: string;
  /** The program to run (looked up on PATH; no shell). */
  command: string;
  /**
   * The arguments: a function of the request and prompt, or fixed arguments to which the prompt is
   * appended as the last argument.
   * @default [] (the prompt alone)
   */
  args?: string[] | ((input: CliArgsInput) => string[]);
  /**
   * How to read stdout: `"text"` (every chunk is text), `"jsonl"` (generic JSON lines), or a
   * factory of a parser for the CLI's own event format (called once per run).
   * @default "text"
   */
  parse?: "text" | "jsonl" | (() => CliOutputParser);
  /** Extra environment variables, over the current process's. @default {} */
  env?: Record<string, string | undefined>;
  /** Working directory of the CLI. @default the current directory */
  cwd?: string;
  /** Turns the request into the prompt. @default cliPrompt: the system prompt, then the conversation */
  prompt?: (request: ModelRequest) => string;
  /** Also write the prompt to the CLI's stdin (then closed). @default false: stdin is not connected */
  promptOnStdin?: boolean;
  /** After an abort: how long SIGTERM has before SIGKILL. @default 2000 */
  killGraceMs?: number;
}

const STDERR_TAIL = 2000;

/**
 * A provider that runs a CLI agent (Claude Code, Codex, pi, or any program) once per request: the
 * prompt goes in, stdout streams out as `text_delta`s (JSON lines are parsed where the CLI offers
 * them). The CLI runs its own tools; `finish.toolCallCount` says how many. It never emits
 * `tool_call` events: nothing for the loop to execute.
 *
 * Abort sends SIGTERM, then SIGKILL after `killGraceMs`; the stream rejects with `AbortError` at once.
 * A non-zero exit is a `ProviderError` whose `status` is the exit code and whose message ends with
 * the tail of stderr; a failure the CLI reports in its output (e.g. `is_error` results) is one too.
 *
 * @example
 * const echo = createCliProvider({ id: "echo", command: "echo" });
 */
export function createCliProvider(options: CliProviderOptions): Provider {
  const { id, command } = options;
  const grace = options.killGraceMs ?? 2000;
  return {
    id,
    async *stream(request, { signal }): AsyncGenerator<ModelEvent> {
      if (signal.aborted) throw abortError(signal);
      const prompt = (options.prompt ?? cliPrompt)(request);
      const args =
        typeof options.args === "function" ? options.args({ request, prompt }) : [...(options.args ?? []), prompt];
      const parse = options.parse ?? "text";
      const parser =
        parse === "text" ? createTextOutputParser() : parse === "jsonl" ? createJsonlOutputParser() : parse();
      const byLine = parse !== "text";

      const queue = new AsyncQueue<CliOutputEvent>();
      let exit: { code: number | null; signal: string | null } | undefined;
      let failure: Error | undefined;
      let stderr = "";
      const notify = () => queue.notify();

      const child = spawn(command, args, {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        stdio: [options.promptOnStdin ? "pipe" : "ignore", "pipe", "pipe"],
      });
      if (options.promptOnStdin) child.stdin?.end(prompt);
      let killTimer: ReturnType<typeof setTimeout> | undefined;
      const kill = () => {
        if (exit || child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        killTimer ??= setTimeout(() => child.kill("SIGKILL"), grace);
      };
      const onAbort = () => {
        kill();
        notify();
      };
      signal.addEventListener("abort", onAbort, { once: true });

      const output = createOutputReader(parser, byLine, (event) => queue.push(event));
      child.stdout?.on("data", (chunk: Buffer) => output.data(chunk));
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL * 2);
      });
      child.on("error", (error: NodeJS.ErrnoException) => {
        failure = new ProviderError(
          error.code === "ENOENT"
            ? `${id}: command not found: ${command}`
            : `${id}: could not run ${command}: ${error.message}`,
          {
            provider: id,
            retryable: false,
            cause: error,
          },
        );
        notify();
      });
      child.on("close", (code: number | null, exitSignal: string | null) => {
        clearTimeout(killTimer);
        output.end();
        exit = { code, signal: exitSignal };
        notify();
      });

      const tally = createTally();
      const settle = (event: CliOutputEvent) => tally.settle(event);

      try {
        for (;;) {
          if (signal.aborted) throw abortError(signal);
          if (failure) throw failure;
          const event = queue.take();
          if (event) {
            const out = settle(event);
            if (out) yield out;
            continue;
          }
          if (exit) break;
          await queue.wait();
        }
        if (exit.code === 0)
          for (const event of parser.end?.() ?? []) {
            const out = settle(event);
            if (out) yield out;
          }
        const stderrTail = stderr.trim().slice(-STDERR_TAIL);
        if (tally.reportedError !== undefined) {
          throw new ProviderError(`${id}: ${tally.reportedError}`, {
            provider: id,
            retryable: false,
            ...(exit.code ? { status: exit.code } : {}),
          });
        }
        if (exit.code !== 0) {
          const how =
            exit.code === null ? `was killed by ${exit.signal ?? "a signal"}` : `exited with code ${exit.code}`;
          throw new ProviderError(`${id}: ${command} ${how}${stderrTail ? `: ${stderrTail}` : ""}`, {
            provider: id,
            retryable: false,
            ...(exit.code === null ? {} : { status: exit.code }),
          });
        }
        const usage = tally.usage();
        if (usage) yield usage;
        yield { type: "finish", reason: "stop", toolCallCount: tally.toolCalls };
      } finally {
        signal.removeEventListener("abort", onAbort);
        kill();
      }
    },
  };
}

/** Feeds a child's stdout to its parser: as it comes (text), or line by line (a trailing `\r` dropped). */
function createOutputReader(parser: CliOutputParser, byLine: boolean, take: (event: CliOutputEvent) => void) {
  const decoder = new TextDecoder();
  let pending = "";
  const line = (text: string) => {
    for (const event of parser.line(text)) take(event);
  };
  return {
    data(chunk: Uint8Array): void {
      const text = decoder.decode(chunk, { stream: true });
      if (!byLine) return line(text);
      pending += text;
      let newline = pending.indexOf("\n");
      while (newline !== -1) {
        line(pending.slice(0, newline).replace(/\r$/, ""));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
    },
    end(): void {
      const tail = decoder.decode();
      if (byLine) {
        if (tail !== "") pending += tail;
        if (pending !== "") line(pending.replace(/\r$/, ""));
      } else if (tail !== "") line(tail);
    },
  };
}

/** Counts tool uses, sums usage and keeps the first reported error of a CLI run; passes other events through. */
function createTally() {
  const sums = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, seen: false, cached: false };
  const tally = {
    toolCalls: 0,
    reportedError: undefined as string | undefined,
    settle(event: CliOutputEvent): ModelEvent | undefined {
      switch (event.type) {
        case "tool_use":
          tally.toolCalls++;
          return undefined;
        case "usage":
          sums.seen = true;
          sums.inputTokens += event.inputTokens;
          sums.outputTokens += event.outputTokens;
          if (event.cachedInputTokens !== undefined) {
            sums.cached = true;
            sums.cachedInputTokens += event.cachedInputTokens;
          }
          return undefined;
        case "error":
          tally.reportedError ??= event.message;
          return undefined;
        default:
          return event;
      }
    },
    usage(): ModelEvent | undefined {
      if (!sums.seen) return undefined;
      return {
        type: "usage",
        inputTokens: sums.inputTokens,
        outputTokens: sums.outputTokens,
        ...(sums.cached ? { cachedInputTokens: sums.cachedInputTokens } : {}),
      };
    },
  };
  return tally;
}

import { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError, type ModelRequest, type Provider } from "@agentry/core";
import { claudeCli, cliPrompt, codexCli, createCliProvider, piCli } from "@agentry/core/node";
import { baseRequest, collect } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentry-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

/** The real setTimeout, for polling another process while this one's timers are fake. */
const realSetTimeout = globalThis.setTimeout;

/** Resolves when `check()` is true, polling every 20 ms of real time (at most `polls` times). */
async function pollUntil(check: () => boolean, what: string, polls = 1_500): Promise<void> {
  for (let i = 0; i < polls; i++) {
    if (check()) return;
    await new Promise((resolve) => realSetTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting: ${what}`);
}

/** Writes an executable node script (shebang) and returns its path. */
function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!${process.execPath}\nconst argvFile = process.env.ARGV_FILE;\nif (argvFile) require("node:fs").writeFileSync(argvFile, JSON.stringify(process.argv.slice(2)));\n${body}\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

const lines = (values: unknown[]) => values.map((value) => JSON.stringify(value)).join("\n");
const argvOf = (file: string) => JSON.parse(readFileSync(file, "utf8")) as string[];

describe("createCliProvider", () => {
  it("streams stdout as text and finishes with a tool-call count of 0", async () => {
    const command = script(
      "talk.cjs",
      `process.stdout.write("Hello, "); setTimeout(() => process.stdout.write("w\\u00f6rld"), 20);`,
    );
    const r = await collect(createCliProvider({ id: "talk", command, args: [] }));
    expect(r.error).toBeUndefined();
    expect(r.text).toBe("Hello, w\u00f6rld");
    expect(r.events.at(-1)).toEqual({ type: "finish", reason: "stop", toolCallCount: 0 });
  });

  it("appends the flattened prompt to fixed args; passes env and cwd", async () => {
    const argvFile = join(dir, "argv-fixed.json");
    const command = script("env.cjs", `process.stdout.write(process.env.GREETING + " from " + process.cwd());`);
    const r = await collect(
      createCliProvider({
        id: "env",
        command,
        args: ["--flag"],
        env: { GREETING: "hi", ARGV_FILE: argvFile },
        cwd: dir,
      }),
      {
        system: "Be terse.",
        messages: [{ role: "user", content: "Do it" }],
      },
    );
    expect(r.text).toBe(`hi from ${dir}`);
    expect(argvOf(argvFile)).toEqual(["--flag", "Be terse.\n\nDo it"]);
  });

  it("streams before the process exits", async () => {
    const marker = join(dir, "go-on");
    const command = script(
      "wait.cjs",
      `process.stdout.write("first");\nconst t = setInterval(() => { if (require("node:fs").existsSync(${JSON.stringify(marker)})) { clearInterval(t); process.stdout.write(" second"); } }, 5);`,
    );
    const events: string[] = [];
    for await (const event of createCliProvider({ id: "wait", command, args: [] }).stream(baseRequest(), {
      signal: new AbortController().signal,
    })) {
      if (event.type === "text_delta") {
        events.push(event.text);
        if (events.length === 1) writeFileSync(marker, "");
      }
    }
    expect(events.join("")).toBe("first second");
  });

  it("turns a non-zero exit into a ProviderError with the exit code and stderr's tail", async () => {
    const command = script(
      "fail.cjs",
      `process.stdout.write("partial"); process.stderr.write("x".repeat(5000) + "\\nfatal: no credentials\\n"); process.exit(3);`,
    );
    const r = await collect(createCliProvider({ id: "fail", command, args: [] }));
    expect(r.text).toBe("partial");
    expect(ProviderError.isInstance(r.error)).toBe(true);
    const error = r.error as ProviderError;
    expect(error.status).toBe(3);
    expect(error.provider).toBe("fail");
    expect(error.message).toMatch(/exited with code 3: x+\nfatal: no credentials$/);
    expect(error.message.length).toBeLessThan(2200);
    expect(r.finishes).toEqual([]);
  });

  it("reports a missing command as a ProviderError", async () => {
    const r = await collect(createCliProvider({ id: "ghost", command: join(dir, "does-not-exist"), args: [] }));
    expect(r.error).toMatchObject({ name: "ProviderError", message: expect.stringContaining("command not found") });
  });

  it("on abort rejects with AbortError at once, sends SIGTERM, then SIGKILL after the grace period", async () => {
    // Only this process's timers are fake: the grace period runs when the test says so.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const kills = vi.spyOn(ChildProcess.prototype, "kill");
    const pidFile = join(dir, "stubborn.pid");
    const termFile = join(dir, "stubborn.sigterm");
    const command = script(
      "stubborn.cjs",
      `const fs = require("node:fs");\nfs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nprocess.on("SIGTERM", () => fs.writeFileSync(${JSON.stringify(termFile)}, "ignored"));\nprocess.stdout.write("working");\nsetInterval(() => {}, 1000);`,
    );
    const controller = new AbortController();
    const received: string[] = [];
    let error: unknown;
    try {
      for await (const event of createCliProvider({ id: "stubborn", command, args: [], killGraceMs: 300 }).stream(
        baseRequest(),
        {
          signal: controller.signal,
        },
      )) {
        if (event.type === "text_delta") received.push(event.text);
        controller.abort();
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ name: "AbortError" });
    expect(received).toEqual(["working"]);
    const pid = Number(readFileSync(pidFile, "utf8"));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await pollUntil(() => existsSync(termFile), "the child got SIGTERM");
      expect(alive()).toBe(true); // it ignores SIGTERM
      const signals = () => new Set(kills.mock.calls.map(([signal]) => signal));
      expect(signals()).toEqual(new Set(["SIGTERM"]));
      vi.advanceTimersByTime(299);
      expect(signals()).toEqual(new Set(["SIGTERM"])); // the grace period is not over
      vi.advanceTimersByTime(1);
      expect(signals()).toEqual(new Set(["SIGTERM", "SIGKILL"]));
      await pollUntil(() => !alive(), "the child died of SIGKILL");
    } finally {
      kills.mockRestore();
      if (alive()) process.kill(pid, "SIGKILL"); // never leave the child behind when the test fails
    }
  });
});

describe("cliPrompt", () => {
  it("labels a multi-turn conversation, with tool calls, results and images", () => {
    const request: ModelRequest = baseRequest({
      system: "You are a helper.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Read it" },
            { type: "image", mediaType: "image/png", data: "AAAA" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading." },
            { type: "tool_call", id: "c1", name: "read", args: { path: "a" } },
          ],
        },
        { role: "tool", content: [{ type: "tool_result", toolCallId: "c1", name: "read", result: "contents" }] },
        { role: "user", content: "Summarize" },
      ],
    });
    expect(cliPrompt(request)).toBe(
      'You are a helper.\n\nUser: Read it\n[image: image/png]\n\nAssistant: Reading.\n[called read with {"path":"a"}]\n\nTool result (read): contents\n\nUser: Summarize',
    );
  });
});

describe("CLI presets", () => {
  it("claudeCli: default args, assistant text streamed, tool uses counted, result usage", async () => {
    const argvFile = join(dir, "argv-claude.json");
    const output = lines([
      { type: "system", subtype: "init", session_id: "s1", tools: ["Read", "Bash"] },
      {
        type: "assistant",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", id: "t1", name: "Read", input: {} },
          ],
        },
      },
      {
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "..." }] },
      },
      {
        type: "assistant",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Count them." },
            { type: "tool_use", id: "t2", name: "Bash", input: {} },
          ],
        },
      },
      { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Done: 3 files." }] } },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        result: "Done: 3 files.",
        usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 50 },
      },
    ]);
    const command = script("claude", `process.stdout.write(${JSON.stringify(output + "\n")});`);
    const r = await collect(claudeCli({ command, env: { ARGV_FILE: argvFile } }), {
      messages: [{ role: "user", content: "List files" }],
    });
    expect(r.error).toBeUndefined();
    expect(argvOf(argvFile)).toEqual(["-p", "List files", "--output-format", "stream-json", "--verbose"]);
    expect(r.text).toBe("Let me look.\n\nDone: 3 files.");
    expect(r.thinking).toEqual([{ text: "Count them." }]);
    expect(r.usage).toEqual([{ type: "usage", inputTokens: 115, outputTokens: 50, cachedInputTokens: 100 }]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "stop", toolCallCount: 2 }]);
  });

  it("claudeCli: an is_error result fails the stream with its message", async () => {
    const output = lines([
      { type: "result", subtype: "error_during_execution", is_error: true, result: "Credit balance is too low" },
    ]);
    const command = script("claude-err", `process.stdout.write(${JSON.stringify(output + "\n")}); process.exit(1);`);
    const r = await collect(claudeCli({ command, model: "sonnet" }));
    expect(r.error).toMatchObject({
      name: "ProviderError",
      status: 1,
      message: "claude-cli: Credit balance is too low",
    });
  });

  it("codexCli: default args, agent messages, reasoning, counted tool items, turn usage", async () => {
    const argvFile = join(dir, "argv-codex.json");
    const output = lines([
      { type: "thread.started", thread_id: "th_1" },
      { type: "turn.started" },
      { type: "item.completed", item: { id: "i0", type: "reasoning", text: "Need to list." } },
      { type: "item.started", item: { id: "i1", type: "command_execution", command: "ls", status: "in_progress" } },
      {
        type: "item.completed",
        item: { id: "i1", type: "command_execution", command: "ls", exit_code: 0, status: "completed" },
      },
      { type: "item.completed", item: { id: "i2", type: "file_change", changes: [], status: "completed" } },
      { type: "item.completed", item: { id: "i3", type: "agent_message", text: "Two files." } },
      { type: "turn.completed", usage: { input_tokens: 200, cached_input_tokens: 150, output_tokens: 20 } },
    ]);
    const command = script("codex", `process.stdout.write(${JSON.stringify(output + "\n")});`);
    const r = await collect(codexCli({ command, env: { ARGV_FILE: argvFile } }), {
      messages: [{ role: "user", content: "ls" }],
    });
    expect(argvOf(argvFile)).toEqual(["exec", "--json", "ls"]);
    expect(r.text).toBe("Two files.");
    expect(r.thinking).toEqual([{ text: "Need to list." }]);
    expect(r.usage).toEqual([{ type: "usage", inputTokens: 200, outputTokens: 20, cachedInputTokens: 150 }]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "stop", toolCallCount: 2 }]);
  });

  it("codexCli: turn.failed fails the stream", async () => {
    const command = script(
      "codex-err",
      `process.stdout.write(${JSON.stringify(lines([{ type: "turn.failed", error: { message: "stream disconnected" } }]) + "\n")});`,
    );
    const r = await collect(codexCli({ command }));
    expect(r.error).toMatchObject({ name: "ProviderError", message: "codex-cli: stream disconnected" });
  });

  it("piCli: default args, text deltas across messages, tool executions, summed usage", async () => {
    const argvFile = join(dir, "argv-pi.json");
    const usage = (input: number, output: number, cacheRead: number) => ({
      input,
      output,
      cacheRead,
      cacheWrite: 0,
      totalTokens: input + output + cacheRead,
    });
    const output = lines([
      { type: "session", version: 3, id: "s", cwd: "/" },
      { type: "agent_start" },
      { type: "message_start", message: { role: "user", content: "hi" } },
      { type: "message_end", message: { role: "user", content: "hi" } },
      { type: "message_start", message: { role: "assistant", content: [] } },
      { type: "message_update", assistantMessageEvent: { type: "thinking_delta", contentIndex: 0, delta: "Plan." } },
      { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 1, delta: "Check" } },
      { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 1, delta: "ing." } },
      {
        type: "message_end",
        message: { role: "assistant", content: [], usage: usage(30, 5, 10), stopReason: "toolUse" },
      },
      { type: "tool_execution_start", toolCallId: "t1", toolName: "bash", args: {} },
      { type: "tool_execution_end", toolCallId: "t1", toolName: "bash", result: {}, isError: false },
      { type: "message_start", message: { role: "assistant", content: [] } },
      { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "All good." } },
      { type: "message_end", message: { role: "assistant", content: [], usage: usage(40, 3, 30), stopReason: "stop" } },
      { type: "agent_end", messages: [] },
    ]);
    const command = script("pi", `process.stdout.write(${JSON.stringify(output)});`);
    const r = await collect(piCli({ command, env: { ARGV_FILE: argvFile } }), {
      messages: [{ role: "user", content: "hi" }],
    });
    expect(r.error).toBeUndefined();
    expect(argvOf(argvFile)).toEqual(["--mode", "json", "-p", "hi"]);
    expect(r.text).toBe("Checking.\n\nAll good.");
    expect(r.thinking).toEqual([{ text: "Plan." }]);
    expect(r.usage).toEqual([{ type: "usage", inputTokens: 110, outputTokens: 8, cachedInputTokens: 40 }]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "stop", toolCallCount: 1 }]);
    expect(existsSync(argvFile)).toBe(true);
  });
  it("presets: --model and extraArgs go where each CLI expects them; args replaces them; id and command override", async () => {
    const argvFile = join(dir, "argv-presets.json");
    const command = script("preset", `process.stdout.write("");`);
    const env = { ARGV_FILE: argvFile };
    const input = { messages: [{ role: "user" as const, content: "go" }] };
    const argv = async (provider: Provider) => (await collect(provider, input), argvOf(argvFile));
    const tail = { model: "m1", extraArgs: ["--x", "y"] };
    expect(await argv(claudeCli({ command, env, ...tail }))).toEqual([
      "-p",
      "go",
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      "m1",
      "--x",
      "y",
    ]);
    expect(await argv(codexCli({ command, env, ...tail }))).toEqual([
      "exec",
      "--json",
      "--model",
      "m1",
      "--x",
      "y",
      "go",
    ]);
    expect(await argv(piCli({ command, env, ...tail }))).toEqual([
      "--mode",
      "json",
      "--model",
      "m1",
      "--x",
      "y",
      "-p",
      "go",
    ]);
    expect(await argv(piCli({ command, env, ...tail, args: ({ prompt }) => ["only", prompt] }))).toEqual([
      "only",
      "go",
    ]);
    expect(piCli({ command, id: "mine" }).id).toBe("mine");
    expect(codexCli().id).toBe("codex-cli");
  });
});

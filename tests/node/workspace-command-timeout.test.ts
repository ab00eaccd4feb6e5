import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultPolicy } from "@agentry/core";
import { createWorkspaceTools, type RunCommandResult } from "@agentry/core/node";

describe("run_command time limit", () => {
  it.each([Infinity, 2 ** 31])(
    "a commandTimeoutMs of %d (over 2^31-1 ms) is no limit, not 'kill at once'",
    async (commandTimeoutMs) => {
      const root = await mkdtemp(join(tmpdir(), "agentry-ws-timeout-"));
      try {
        const runCommand = createWorkspaceTools({ commandAllowlist: ["node"], commandTimeoutMs }).find(
          (t) => t.name === "run_command",
        )!;
        const policy = defaultPolicy("thread", { workspaceRoot: root });
        const result = (await runCommand.execute!(
          { command: "node", args: ["-e", "setTimeout(() => process.stdout.write('ok'), 50)"] },
          { toolCallId: "c1", depth: 0, parentId: null, callKey: "test", signal: new AbortController().signal, policy },
        )) as RunCommandResult;
        expect(result).toMatchObject({ timedOut: false, exitCode: 0, stdout: "ok" });
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    },
  );
});

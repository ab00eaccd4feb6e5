import { describe, expect, it } from "vitest";
import { callMcpTask } from "../../src/mcp/call-mcp-task.js";
import type { McpServerSettings, McpSession } from "../../src/mcp/mcp-session.js";

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";
const task = (status: Status, extra: Record<string, unknown> = {}) => ({
  taskId: "t1",
  status,
  ttl: null,
  createdAt: "2025-11-25T00:00:00Z",
  lastUpdatedAt: "2025-11-25T00:00:00Z",
  ...extra,
});

/** A session whose server answers tasks/get with `statuses` in turn (the last one for ever); records every request. */
function fakeSession(
  statuses: ReturnType<typeof task>[],
  result: unknown = { content: [{ type: "text", text: "done" }] },
) {
  const log: string[] = [];
  const times: number[] = [];
  let polls = 0;
  const client = {
    request: async (request: { method: string }) => {
      log.push(request.method);
      return { task: task("working", { pollInterval: 0 }) };
    },
    experimental: {
      tasks: {
        getTask: async () => {
          log.push("tasks/get");
          times.push(Date.now());
          return statuses[Math.min(polls++, statuses.length - 1)]!;
        },
        getTaskResult: async () => {
          log.push("tasks/result");
          return result;
        },
        cancelTask: async () => {
          log.push("tasks/cancel");
          return task("cancelled");
        },
      },
    },
  };
  const session = { client, closed: false } as unknown as McpSession;
  return { session, log, times };
}
const settings = (timeoutMs: number) =>
  ({ name: "srv", timeoutMs, connectTimeoutMs: 1_000 }) as unknown as McpServerSettings;
const call = (signal = new AbortController().signal, progress: unknown[] = []) => ({
  toolName: "research",
  args: {},
  signal,
  onProgress: (value: unknown) => progress.push(value),
});

describe("task-based MCP calls (tasks/get, tasks/result, tasks/cancel)", () => {
  it("polls until completed, at least 100 ms apart even when the server asks for 0, then reads the result", async () => {
    const progress: unknown[] = [];
    const { session, log, times } = fakeSession([
      task("working", { pollInterval: 0, statusMessage: "half" }),
      task("completed"),
    ]);
    await expect(callMcpTask(settings(10_000), session, call(undefined, progress))).resolves.toEqual({
      content: [{ type: "text", text: "done" }],
    });
    expect(log).toEqual(["tools/call", "tasks/get", "tasks/get", "tasks/result"]);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(90);
    expect(progress).toEqual([
      { taskStatus: "working", message: undefined },
      { taskStatus: "working", message: "half" },
      { taskStatus: "completed", message: undefined },
    ]);
  });

  it("cancels the task on the server when the turn aborts", async () => {
    const controller = new AbortController();
    const { session, log } = fakeSession([task("working", { pollInterval: 60_000 })]);
    const pending = callMcpTask(settings(60_000), session, call(controller.signal));
    setTimeout(() => controller.abort(new Error("stopped")), 50);
    await expect(pending).rejects.toThrow("stopped");
    expect(log).toContain("tasks/cancel");
  });

  it("cancels the task and fails with a timeout when it outlasts timeoutMs, whatever pollInterval the server asks", async () => {
    const { session, log } = fakeSession([task("working", { pollInterval: 3_600_000 })]);
    await expect(callMcpTask(settings(300), session, call())).rejects.toMatchObject({ code: -32001 });
    expect(log.at(-1)).toBe("tasks/cancel");
  });

  it("a failed task is an error result with the server's status message when tasks/result gives none", async () => {
    const { session } = fakeSession([task("failed", { statusMessage: "disk full" })], { content: [] });
    await expect(callMcpTask(settings(5_000), session, call())).resolves.toEqual({
      isError: true,
      content: [{ type: "text", text: "disk full" }],
    });
  });
});

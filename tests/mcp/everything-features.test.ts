import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolResultContent } from "@agentry/core";
import { connectMcpServer, McpRequestError, type McpConnection } from "@agentry/core/mcp";
import { run } from "../loop/helpers.js";
import { everythingServer, runMcpTool, SERVER_START_MS, toolContext } from "./servers.js";

const ctx = toolContext;
const policy = {
  ...defaultPolicy(),
  classes: [...defaultPolicy().classes, "network"],
  allowedMcpServers: ["everything"],
};

describe("the official everything server: images, resources, prompts, progress, tasks", { timeout: 60_000 }, () => {
  let everything: McpConnection;
  beforeAll(async () => {
    everything = await connectMcpServer({
      name: "everything",
      command: process.execPath,
      args: [everythingServer(), "stdio"],
      approval: "never",
    });
  }, SERVER_START_MS);
  afterAll(() => everything.close());
  const tool = (name: string) => everything.tools().find((t) => t.name === `everything.${name}`)!;

  it("an image a tool returns reaches the model as an image part, not a note", async () => {
    const { result, provider } = await run({
      script: [{ toolCalls: [{ id: "c1", name: "everything.get-tiny-image", args: {} }] }, { text: "a logo" }],
      tools: everything.tools(),
      policy,
    });
    expect(result.status).toBe("complete");
    const sent = provider.calls[1]!.messages.at(-1)!;
    expect(sent.role).toBe("tool");
    const content = (sent.content as { result: ToolResultContent }[])[0]!.result;
    expect(content.type).toBe("content");
    expect(content.parts).toContainEqual({
      type: "image",
      mediaType: "image/png",
      data: expect.stringMatching(/^iVBORw0KGgo/),
    });
  });

  it("lists and reads resources, typed and bounded; an unknown URI is an McpRequestError", async () => {
    const resources = await everything.listResources();
    const doc = resources.find((r) => r.uri.startsWith("demo://resource/static/document/"));
    expect(doc).toMatchObject({ uri: expect.any(String), name: expect.any(String), mimeType: expect.any(String) });
    const contents = await everything.readResource(doc!.uri);
    expect(contents).toEqual([{ uri: doc!.uri, mimeType: doc!.mimeType, text: expect.any(String) }]);
    await expect(everything.readResource("demo://nothing/here")).rejects.toSatisfy(
      (error) =>
        McpRequestError.isInstance(error) && error.server === "everything" && error.method === "resources/read",
    );
  });

  it("lists prompts with their arguments and fills one in; an unknown prompt is an McpRequestError", async () => {
    const prompts = await everything.listPrompts();
    expect(prompts.find((p) => p.name === "args-prompt")).toMatchObject({
      title: "Arguments Prompt",
      arguments: [
        { name: "city", required: true },
        { name: "state", required: false },
      ],
    });
    await expect(everything.getPrompt("args-prompt", { city: "Paris" })).resolves.toEqual({
      messages: [{ role: "user", content: { type: "text", text: "What's weather in Paris?" } }],
    });
    await expect(everything.getPrompt("no-such-prompt")).rejects.toBeInstanceOf(McpRequestError);
  });

  it("progress notifications of a call become tool_progress events", async () => {
    const progress: unknown[] = [];
    const result = await runMcpTool(
      tool("trigger-long-running-operation"),
      { duration: 0.6, steps: 3 },
      ctx(),
      progress,
    );
    expect(result).toMatch(/Long running operation completed/);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    for (const value of progress) expect(value).toEqual({ progress: expect.any(Number), total: 3 });

    const { events } = await run({
      script: [
        {
          toolCalls: [
            { id: "c1", name: "everything.trigger-long-running-operation", args: { duration: 0.6, steps: 3 } },
          ],
        },
        { text: "done" },
      ],
      tools: everything.tools(),
      policy,
    });
    const ticks = events.filter((e) => e.type === "tool_progress");
    expect(ticks.length).toBeGreaterThanOrEqual(1);
    expect(ticks[0]).toMatchObject({ toolCallId: "c1", progress: { total: 3 } });
  });

  it("a task-based tool (taskSupport required) runs as a task: created, followed to its result", async () => {
    const research = tool("simulate-research-query");
    expect(research).toBeDefined();
    const progress: unknown[] = [];
    const result = await runMcpTool(research, { topic: "tides" }, ctx(), progress);
    expect(result).toMatch(/# Research Report: tides/);
    expect(progress).toContainEqual({ taskStatus: "working", message: expect.stringMatching(/\.\.\.$/) });
  });

  it("a task-based call that outlasts timeoutMs fails with the time limit (the task is cancelled)", async () => {
    const quick = await connectMcpServer({
      name: "quick",
      command: process.execPath,
      args: [everythingServer(), "stdio"],
      timeoutMs: 1_500,
    });
    try {
      const research = quick.tools().find((t) => t.name === "quick.simulate-research-query")!;
      await expect(runMcpTool(research, { topic: "tides" }, ctx())).rejects.toThrow(/did not answer .* within 1500 ms/);
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("stop")), 300);
      await expect(runMcpTool(research, { topic: "tides" }, ctx(controller.signal))).rejects.toThrow("stop");
      // The connection is fine afterwards.
      await expect(
        runMcpTool(
          quick.tools().find((t) => t.name === "quick.echo")!,
          { message: "hi" },
          ctx(),
        ),
      ).resolves.toBe("Echo: hi");
    } finally {
      await quick.close();
    }
  });
});

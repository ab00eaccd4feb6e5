import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defaultPolicy, defineTool, type LoopEvent, type Tool } from "@agentry/core";
import { echo, run } from "./helpers.js";

const ends = (events: LoopEvent[]) =>
  Object.fromEntries(
    events.flatMap((event) =>
      event.type === "tool_call_update" && event.status === "end" ? [[event.toolCallId, event] as const] : [],
    ),
  );

describe("refusal reasons on tool end events", () => {
  it("say why a call was not run; calls that ran carry none", async () => {
    const shell = defineTool({
      name: "shell",
      description: "Run",
      input: z.object({ command: z.string() }),
      permissionClass: "execute",
      execute: () => "ran",
    });
    // Given to the loop directly (no toolbelt in between): dispatch refuses it by its server.
    const issues: Tool = {
      ...defineTool({ name: "gh.issue", description: "Issue", input: z.object({}), execute: () => "opened" }),
      mcpServer: "gh",
    };
    const asks = defineTool({
      name: "asks",
      description: "Asks",
      input: z.object({}),
      requiresApproval: () => Promise.reject(new Error("cannot tell")),
      execute: () => "x",
    });
    const { events } = await run({
      tools: [echo, shell, issues, asks],
      policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "subagent"] },
      budget: { maxDepth: 0 },
      script: [
        {
          toolCalls: [
            { id: "ok", name: "echo", args: { text: "hi" } },
            { id: "unknown", name: "nope", args: {} },
            { id: "class", name: "shell", args: { command: "ls" } },
            { id: "mcp", name: "gh.issue", args: {} },
            { id: "invalid", name: "echo", args: { text: 1 } },
            { id: "json", name: "echo", args: "{oops" },
            { id: "deep", name: "run_subtask", args: { title: "t", instructions: "i" } },
            { id: "check", name: "asks", args: {} },
          ],
        },
        { text: "done" },
      ],
    });
    const byId = ends(events);
    expect(byId.ok!.refused).toBeUndefined();
    expect(byId.unknown!.refused).toBe("unknown_tool");
    expect(byId.class!.refused).toBe("not_permitted");
    expect(byId.mcp!.refused).toBe("mcp_server_not_allowed");
    expect(byId.invalid!.refused).toBe("invalid_arguments");
    expect(byId.json!.refused).toBe("invalid_arguments");
    expect(byId.deep!.refused).toBe("depth_limit");
    expect(byId.check!.refused).toBe("approval_check_failed");
  });

  it("a call the spent budget stops is refused as budget_exceeded", async () => {
    const { events } = await run({
      tools: [echo],
      budget: { maxTotalToolCalls: 1 },
      script: [
        {
          toolCalls: [
            { id: "a", name: "echo", args: { text: "1" } },
            { id: "b", name: "echo", args: { text: "2" } },
          ],
        },
        { text: "done" },
      ],
    });
    const byId = ends(events);
    expect(byId.a!.refused).toBeUndefined();
    expect(byId.b!.refused).toBe("budget_exceeded");
  });
});

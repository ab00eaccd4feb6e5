/**
 * Plan, review, act: a task whose planner explores a workspace with read-only tools and submits a
 * plan, is revised once, approved, asks one question while it works, and completes. Prints the
 * lifecycle as it goes.
 *
 * Runs offline on the scripted provider (swap in `openai()` or `anthropic()` for a real model).
 *
 *   npx tsx --tsconfig tsconfig.tests.json examples/plan-act.ts
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry, createAgentRuntime, defaultPolicy, MemorySessionStore, type ModelRequest, type RuntimeEvent } from "@agentry/core";
import { createWorkspaceTools } from "@agentry/core/node";
import { createFakeProvider, formatEvent, type FakeTurn } from "@agentry/core/testing";

// 1. A workspace with two notes files that overlap.
const workspace = mkdtempSync(join(tmpdir(), "plan-act-"));
writeFileSync(join(workspace, "notes-a.md"), "- buy milk\n- call Ann\n");
writeFileSync(join(workspace, "notes-b.md"), "- call Ann\n- book flights\n");

// 2. The scripted model: the planner explores, then submits a plan; the actor asks, then writes.
const planText = (keepOriginals: boolean) =>
  [
    "Goal: merge the two notes files into notes.md",
    "",
    "1. Read notes-a.md and notes-b.md",
    "2. Write notes.md with every item once",
    keepOriginals ? "3. Keep the original files" : "3. Delete notes-a.md and notes-b.md",
  ].join("\n");
function model(request: ModelRequest): FakeTurn {
  const last = request.messages[request.messages.length - 1]!;
  const calledLast = last.role === "tool" ? last.content[0]!.name : undefined;
  if (request.caller?.role === "planner") {
    const revised = request.messages.some((m) => m.role === "user" && typeof m.content === "string" && m.content.includes("Keep the originals"));
    if (calledLast === undefined) return { toolCalls: [{ name: "list_directory", args: { path: "." } }] };
    if (calledLast === "list_directory") return { toolCalls: [{ name: "read_file", args: { path: "notes-b.md" } }] };
    if (calledLast === "read_file")
      return { toolCalls: [{ name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: planText(revised) } }] };
    return { text: "I submitted the plan for review." };
  }
  if (calledLast === undefined) {
    return {
      toolCalls: [
        {
          name: "ask_user",
          args: {
            question: "Should notes.md list the items in the original order?",
            severity: "minor",
            options: [
              { label: "Original order", value: "original" },
              { label: "Alphabetical", value: "alphabetical" },
            ],
            default: "original",
          },
        },
      ],
    };
  }
  if (calledLast === "ask_user")
    return { toolCalls: [{ name: "write_file", args: { path: "notes.md", content: "- buy milk\n- call Ann\n- book flights\n" } }] };
  return { text: "Done: notes.md holds every item once; the originals are kept." };
}

// 3. A runtime with the workspace tools, confined to the workspace.
const runtime = createAgentRuntime({
  registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]),
  store: new MemorySessionStore(),
  providers: { scripted: createFakeProvider(model) },
  defaultModel: "scripted",
  tools: createWorkspaceTools(),
  policy: defaultPolicy("thread", { workspaceRoot: workspace }),
});
const SHOWN = new Set(["task_status", "planning_started", "artifact_created", "plan_ready", "question", "role_changed", "tool_call_update"]);
runtime.events.on("event", (event: RuntimeEvent) => {
  if (!SHOWN.has(event.type) || (event.type === "tool_call_update" && event.status === "end")) return;
  const line = formatEvent(event);
  if (line !== undefined) console.log(line);
});

// 4. Plan, review (one revision), approve, answer the question.
const task = await runtime.tasks.create({ agentId: "dev", content: "Merge my two notes files" });
console.log(`task ${task.status}`);
await runtime.tasks.revise(task.taskId, "Keep the originals, please.");
const reviewed = await runtime.tasks.get(task.taskId);
console.log(`task ${reviewed?.status}; plan:\n${(await runtime.tasks.artifacts(task.taskId)).at(-1)?.content}`);
const executing = await runtime.tasks.approve(task.taskId);
console.log(`turn ${executing.status}`);
const [question] = await runtime.pendingQuestions({ sessionId: task.sessionId });
console.log(`answering "${question?.question.question}" with "original"`);
const done = await runtime.answerQuestion(question!.questionId, { value: "original" });
console.log(`assistant: ${done.text}`);
console.log(`task ${(await runtime.tasks.get(task.taskId))?.status}`);
console.log(`notes.md:\n${readFileSync(join(workspace, "notes.md"), "utf8")}`);
await runtime.close();

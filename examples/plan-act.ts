/**
 * Plan, review, act: a task whose planner explores a git repository with read-only tools
 * (`list_directory`, `search_files`, `git_status`, `read_file`) and submits a plan, is revised
 * once, approved, asks one question while it works, creates a file with `apply_patch`, checks
 * `git_status` and completes. The policy may read, edit and create files but not delete them.
 * Prints the lifecycle as it goes.
 *
 * Runs offline on the scripted provider (swap in `openai()` or `anthropic()` for a real model);
 * needs `git` on PATH.
 *
 *   npx tsx --tsconfig tsconfig.tests.json examples/plan-act.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAgentRegistry,
  createAgentRuntime,
  defaultPolicy,
  MemorySessionStore,
  type ModelRequest,
  type RuntimeEvent,
} from "@agentry/core";
import { createWorkspaceTools } from "@agentry/core/node";
import { createFakeProvider, formatEvent, type FakeTurn } from "@agentry/core/testing";

// 1. A git repository with two notes files that overlap, committed.
const workspace = mkdtempSync(join(tmpdir(), "plan-act-"));
writeFileSync(join(workspace, "notes-a.md"), "- buy milk\n- call Ann\n");
writeFileSync(join(workspace, "notes-b.md"), "- call Ann\n- book flights\n");
writeFileSync(join(workspace, "README.md"), "# Notes\n\n- notes-a.md\n- notes-b.md\n");
const git = (...args: string[]) =>
  execFileSync(
    "git",
    ["-c", "user.name=Example", "-c", "user.email=example@example.com", "-c", "init.defaultBranch=main", ...args],
    {
      cwd: workspace,
      encoding: "utf8",
    },
  );
git("init", "-q");
git("add", ".");
git("commit", "-q", "-m", "two notes files");

// The patch the actor applies, all or nothing: a new file (so it needs workspace_create) and an edit.
const MERGED_NOTES = [
  "--- /dev/null",
  "+++ b/notes.md",
  "@@ -0,0 +1,3 @@",
  "+- buy milk",
  "+- call Ann",
  "+- book flights",
  "--- a/README.md",
  "+++ b/README.md",
  "@@ -3,2 +3,3 @@",
  " - notes-a.md",
  " - notes-b.md",
  "+- notes.md (both, merged)",
  "",
].join("\n");

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
    const revised = request.messages.some(
      (m) => m.role === "user" && typeof m.content === "string" && m.content.includes("Keep the originals"),
    );
    if (calledLast === undefined) return { toolCalls: [{ name: "list_directory", args: { path: "." } }] };
    if (calledLast === "list_directory")
      return { toolCalls: [{ name: "search_files", args: { pattern: "^- call", include: ["*.md"] } }] };
    if (calledLast === "search_files") return { toolCalls: [{ name: "git_status", args: {} }] };
    if (calledLast === "git_status") return { toolCalls: [{ name: "read_file", args: { path: "notes-b.md" } }] };
    if (calledLast === "read_file")
      return {
        toolCalls: [
          { name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: planText(revised) } },
        ],
      };
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
  if (calledLast === "ask_user") return { toolCalls: [{ name: "apply_patch", args: { patch: MERGED_NOTES } }] };
  if (calledLast === "apply_patch") return { toolCalls: [{ name: "git_diff", args: {} }] };
  if (calledLast === "git_diff") return { toolCalls: [{ name: "git_status", args: {} }] };
  return { text: "Done: notes.md holds every item once; the originals are kept." };
}

// 3. A runtime with the workspace tools, confined to the workspace.
const runtime = createAgentRuntime({
  registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]),
  store: new MemorySessionStore(),
  providers: { scripted: createFakeProvider(model) },
  defaultModel: "scripted",
  tools: createWorkspaceTools(),
  // Finer file permissions: read, edit and create, but no workspace_delete (delete_file is not
  // even offered, and a patch that deletes a file is refused). The planner role narrows this to
  // read-only tools while it plans.
  policy: {
    ...defaultPolicy("thread", { workspaceRoot: workspace }),
    classes: ["safe", "knowledge", "subagent", "workspace_read", "workspace_write", "workspace_create"],
  },
});
const SHOWN = new Set([
  "task_status",
  "planning_started",
  "artifact_created",
  "plan_ready",
  "question",
  "role_changed",
  "tool_call_update",
]);
runtime.events.on("event", (event: RuntimeEvent) => {
  if (event.type === "tool_call_update" && event.status === "end") {
    // The search's and git's answers (what a real model would read), and any tool error.
    if (event.isError === true) console.log(`  ✗ ${event.name}: ${JSON.stringify(event.result)}`);
    else if (["search_files", "git_status", "apply_patch"].includes(event.name))
      console.log(`  ${event.name} → ${JSON.stringify(event.result)}`);
    else if (event.name === "git_diff") console.log(`  git_diff →\n${(event.result as { diff: string }).diff}`);
    return;
  }
  if (!SHOWN.has(event.type)) return;
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
console.log(`git status --short:\n${git("status", "--short")}`);
await runtime.close();

import type { NewRecord, SessionStore } from "../contracts/session-store.js";

/** One conformance check: runs against a fresh store. */
export interface ContractCase {
  name: string;
  run(store: SessionStore): Promise<void>;
}

/** A user text message record. */
export function userText(id: string, text: string, frame: string | null = null): NewRecord {
  return { id, kind: "message", frame, message: { role: "user", content: text } };
}

/** One record of every kind of `HistoryRecord` (and shapes the loop and runtime store), in a plausible order. */
export function everyRecordKind(): NewRecord[] {
  const request = {
    requestId: "req_1",
    toolCallId: "call_2",
    name: "delete_file",
    args: { path: "notes/old.md", force: true },
    depth: 1,
    parentId: "call_1",
    reason: "tool requires approval",
  };
  return [
    { id: "k-turn-start", kind: "turn", frame: null, runId: "run_1", phase: "start" },
    {
      id: "k-user",
      kind: "message",
      frame: null,
      message: {
        role: "user",
        origin: "scheduler",
        silent: true,
        content: [
          { type: "text", text: 'What is in this picture? ünïcødé ✓ "quoted" \\ \n newline' },
          {
            type: "image",
            mediaType: "image/png",
            data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
          },
        ],
      },
    },
    assistantCallRecord(),
    { id: "k-child-user", kind: "message", frame: "call_1", message: { role: "user", content: "inspect" } },
    { id: "k-approval-request", kind: "approval", frame: "call_1", runId: "run_1", request },
    {
      id: "k-approval-decision",
      kind: "approval",
      frame: "call_1",
      runId: "run_1",
      request,
      decision: "denied",
      reason: "not now",
    },
    {
      id: "k-tool-results",
      kind: "message",
      frame: null,
      message: {
        role: "tool",
        content: [
          { type: "tool_result", toolCallId: "call_1", name: "run_subtask", result: { summary: "done", items: [] } },
          { type: "tool_result", toolCallId: "call_9", name: "read_file", result: "ENOENT", isError: true },
        ],
      },
    },
    {
      id: "k-assistant-final",
      kind: "message",
      frame: null,
      message: {
        role: "assistant",
        messageType: "text",
        content: [{ type: "text", text: "All done." }],
        executionTree: {
          version: 1,
          nodes: [
            {
              id: "call_1",
              parent_id: null,
              name: "run_subtask",
              title: "Inspect",
              args_preview: '{"prompt":"inspect"}',
              duration_ms: 12,
            },
            {
              id: "call_9",
              parent_id: "call_1",
              name: "read_file",
              result_preview: "ENOENT",
              is_error: true,
              duration_ms: 0,
            },
          ],
        },
        usage: {
          inputTokens: 120,
          outputTokens: 30,
          llmCalls: 3,
          toolCalls: 2,
          costUsd: 0.00042,
          cachedInputTokens: 64,
        },
      },
    },
    ...runtimeRecordKinds(),
    { id: "k-turn-end", kind: "turn", frame: null, runId: "run_1", phase: "end", status: "complete" },
    { id: "k-reset", kind: "reset", frame: null, summary: "Earlier: looked at a picture." },
  ];
}

/**
 * The runtime's own record kinds (tool results, audit, artifacts, tasks, roles, a message with the
 * host's id, a rewind, a compaction), for {@link everyRecordKind}.
 */
function runtimeRecordKinds(): NewRecord[] {
  return [
    {
      id: "k-tool-result",
      kind: "tool_result",
      frame: "call_1",
      runId: "run_1",
      toolCallId: "call_9",
      result: { type: "tool_result", toolCallId: "call_9", name: "read_file", result: "ENOENT", isError: true },
    },
    {
      id: "k-audit",
      kind: "audit",
      frame: "call_1",
      entry: {
        entryId: "audit_1",
        sessionId: "session_1",
        scope: "user-a",
        agentId: "agent-a",
        runId: "run_1",
        toolCallId: "call_9",
        tool: "read_file",
        depth: 1,
        parentId: "call_1",
        argsDigest: "0f3c",
        decision: "allowed",
        startedAt: "2026-01-01T00:00:00.000Z",
        durationMs: 0,
        isError: true,
      },
    },
    {
      id: "k-artifact",
      kind: "artifact",
      frame: null,
      artifactId: "art_1",
      filename: "plan.md",
      artifactKind: "plan",
      content: "Goal: g\n\n1. a",
      runId: "run_1",
    },
    { id: "k-task-start", kind: "task", frame: null, taskId: "task_1", from: null, to: "planning" },
    {
      id: "k-task-review",
      kind: "task",
      frame: null,
      taskId: "task_1",
      from: "planning",
      to: "awaiting_review",
      marker: "m1",
      planArtifactId: "art_1",
    },
    { id: "k-role", kind: "role", frame: null, role: "actor", from: "planner" },
    {
      id: "k-user-with-id",
      kind: "message",
      frame: null,
      message: { role: "user", content: "Edited: look again" },
      messageId: "ui-msg-7",
    },
    {
      id: "k-rewind",
      kind: "rewind",
      frame: null,
      before: "ui-msg-7",
      beforeSeq: 3,
      toolCalls: [{ toolCallId: "call_9", tool: "read_file", runId: "run_1", depth: 1 }],
      toolCallsOmitted: 2,
      cause: "edit",
    },
    {
      id: "k-compaction",
      kind: "compaction",
      frame: null,
      summary: "## Goal\n- inspect the picture",
      keptFromSeq: 2,
      source: "model",
      tokensBefore: 120_000,
      tokensAfter: 9_000,
      summarizedMessages: 40,
      runId: "run_1",
      instructions: "keep the paths",
    },
  ];
}

/** An assistant message calling a sub-task, with every kind of thinking part (signed, redacted, a reasoning item). */
function assistantCallRecord(): NewRecord {
  return {
    id: "k-assistant-call",
    kind: "message",
    frame: null,
    message: {
      role: "assistant",
      messageType: "tool_call",
      content: [
        { type: "thinking", text: "I should look first.", signature: "sig-abc123==" },
        { type: "thinking", text: "", redacted: true },
        {
          type: "thinking",
          text: "Plan: inspect.",
          providerMetadata: {
            openaiResponses: {
              item: {
                id: "rs_1",
                type: "reasoning",
                summary: [{ type: "summary_text", text: "Plan: inspect." }],
                encrypted_content: "gAAAAB==",
              },
            },
          },
        },
        {
          type: "tool_call",
          id: "call_1",
          name: "run_subtask",
          args: { prompt: "inspect", nested: { list: [1, 2.5, null, "x"] } },
        },
      ],
    },
  };
}

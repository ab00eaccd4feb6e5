import type { AgentRuntime, PendingApproval, PendingQuestion } from "../contracts/agent-runtime.js";
import type { ExecutionTreeSnapshot } from "../contracts/execution-tree.js";
import type { AssistantPart, Message, UserMessage, UserPart } from "../contracts/message.js";
import type { Plan, Question } from "../contracts/plan.js";
import type { HistoryRecord, LoadOptions } from "../contracts/session-store.js";
import type { RuntimeTurnRecord } from "../runtime/create-agent-runtime.js";
import type { PendingResponse, SessionRow, TaskRow } from "./inspector-api-types.js";
import type { RedactHook, RedactInfo } from "./inspector-options.js";

// The inspector's one redaction choke point. Every view and export is built from what this file
// returns, never from the store's records or the runtime's lists as they are: the session's turn
// trees, the live stream, a node's detail, export-as-test (all from `loadRedacted`), the pending
// decisions, the session rows and the task rows. A value derived from a record (a tree node's
// error, a sub-task's label, a turn's label) is derived from the redacted record.

type Redact = RedactHook | undefined;

/** `value` through the host's redact hook; a hook that throws shows a placeholder, never the value. */
export function redacted(redact: Redact, value: unknown, info: RedactInfo): unknown {
  if (!redact) return value;
  try {
    return redact(value, info);
  } catch {
    return "[redaction failed]";
  }
}

/** Text through the hook; whatever it returns that is not a string is shown as JSON text. */
function redactedText(redact: Redact, text: string, info: RedactInfo): string {
  const value = redacted(redact, text, info);
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[redaction failed]";
  }
}

const textInfo = (sessionId: string, tool = ""): RedactInfo => ({ part: "text", tool, sessionId });

/** The session's records (as `store.load` takes them), each through {@link redactRecord}. */
export async function loadRedacted(
  runtime: AgentRuntime,
  redact: Redact,
  sessionId: string,
  options?: LoadOptions,
): Promise<HistoryRecord[]> {
  const records = await runtime.store.load(sessionId, options);
  return redact ? records.map((record) => redactRecord(record, redact, sessionId)) : records;
}

/**
 * A record as the inspector sends it: tool arguments (`args`) and results (`result`: tool messages,
 * tool result records, a question's answer, results kept for a resumption), message text and
 * thinking, system prompts, artifacts, reset and compaction summaries (and the compaction's instructions) (`text`), model call and turn errors (`error`), and the
 * host's turn context (`context`) passed through `redact`. The stored record is not changed.
 */
export function redactRecord(record: HistoryRecord, redact: Redact, sessionId: string): HistoryRecord {
  if (!redact) return record;
  switch (record.kind) {
    case "message":
      return { ...record, message: redactMessage(record.message, redact, sessionId) };
    case "tool_result": {
      const info: RedactInfo = { part: "result", tool: record.result.name, sessionId };
      return { ...record, result: { ...record.result, result: redacted(redact, record.result.result, info) } };
    }
    case "approval": {
      const args = redacted(redact, record.request.args, { part: "args", tool: record.request.name, sessionId });
      const copy = { ...record, request: { ...record.request, args } };
      if (record.answer !== undefined)
        copy.answer = redacted(redact, record.answer, { part: "result", tool: record.request.name, sessionId });
      return copy;
    }
    case "turn":
      return redactTurn(record, redact, sessionId);
    case "model_call":
      return record.error === undefined
        ? record
        : { ...record, error: redactedText(redact, record.error, { part: "error", tool: "", sessionId }) };
    case "artifact":
      return { ...record, content: redactedText(redact, record.content, textInfo(sessionId)) };
    case "compaction":
      return {
        ...record,
        summary: redactedText(redact, record.summary, textInfo(sessionId)),
        ...(record.instructions !== undefined && {
          instructions: redactedText(redact, record.instructions, textInfo(sessionId)),
        }),
      };
    case "reset":
      return record.summary === undefined
        ? record
        : { ...record, summary: redactedText(redact, record.summary, textInfo(sessionId)) };
    case "prompt":
      // A sub-task's system prompt holds the model's title for it; the tool schemas are the host's.
      return record.system === undefined
        ? record
        : { ...record, system: redactedText(redact, record.system, textInfo(sessionId)) };
    case "steer":
      // A user message stays a user message.
      return { ...record, message: redactMessage(record.message, redact, sessionId) as typeof record.message };
    case "queued": {
      // A message waiting behind a decision: its text and the host's context, as on a message and a turn.
      const copy = { ...record, message: redactUserMessage(record.message, redact, sessionId) };
      if (record.context !== undefined)
        copy.context = redacted(redact, record.context, {
          part: "context",
          tool: "",
          sessionId,
        }) as typeof record.context;
      return copy;
    }
    case "audit":
    case "role":
    case "task":
    case "stop":
    case "rewind":
    case "tool_start":
      // Digests, codes, ids, statuses, tool names (a stop's reason is the host's).
      return record;
    default:
      // A host's own kinds (stored as JSON, outside the union) are passed on as they are.
      return unknownKind(record);
  }
}

function redactTurn(record: RuntimeTurnRecord, redact: RedactHook, sessionId: string): RuntimeTurnRecord {
  const copy: RuntimeTurnRecord = { ...record };
  if (record.executionTree) copy.executionTree = redactTree(record.executionTree, redact, sessionId);
  if (record.error)
    copy.error = {
      ...record.error,
      message: redactedText(redact, record.error.message, { part: "error", tool: "", sessionId }),
    };
  if (record.context !== undefined)
    copy.context = redacted(redact, record.context, { part: "context", tool: "", sessionId }) as typeof record.context;
  if (record.resume) {
    const results = Object.entries(record.resume.results).map(([id, part]) => {
      const result = redacted(redact, part.result, { part: "result", tool: part.name, sessionId });
      return [id, { ...part, result }] as const;
    });
    copy.resume = { ...record.resume, results: Object.fromEntries(results) };
  }
  return copy;
}

function redactMessage(message: Message, redact: RedactHook, sessionId: string): Message {
  switch (message.role) {
    case "assistant":
      return {
        ...message,
        ...(message.executionTree && { executionTree: redactTree(message.executionTree, redact, sessionId) }),
        content: message.content.map((part): AssistantPart => {
          switch (part.type) {
            case "tool_call":
              return { ...part, args: redacted(redact, part.args, { part: "args", tool: part.name, sessionId }) };
            case "text":
            case "thinking":
              return { ...part, text: redactedText(redact, part.text, textInfo(sessionId)) };
            default:
              return unknownKind(part);
          }
        }),
      };
    case "tool":
      return {
        ...message,
        content: message.content.map((part) => ({
          ...part,
          result: redacted(redact, part.result, { part: "result", tool: part.name, sessionId }),
        })),
      };
    case "user":
      return redactUserMessage(message, redact, sessionId);
    default:
      return unknownKind(message);
  }
}

function redactUserMessage(message: UserMessage, redact: RedactHook, sessionId: string): UserMessage {
  return {
    ...message,
    content:
      typeof message.content === "string"
        ? redactedText(redact, message.content, textInfo(sessionId))
        : message.content.map((part): UserPart =>
            part.type === "text" ? { ...part, text: redactedText(redact, part.text, textInfo(sessionId)) } : part,
          ),
  };
}

/** An execution tree snapshot with its titles and argument and result previews passed through `redact`. */
function redactTree(tree: ExecutionTreeSnapshot, redact: RedactHook, sessionId: string): ExecutionTreeSnapshot {
  return {
    ...tree,
    nodes: tree.nodes.map((node) => {
      const copy = { ...node };
      if (node.title !== undefined) copy.title = redactedText(redact, node.title, textInfo(sessionId, node.name));
      if (node.args_preview !== undefined)
        copy.args_preview = redactedText(redact, node.args_preview, { part: "args", tool: node.name, sessionId });
      if (node.result_preview !== undefined)
        copy.result_preview = redactedText(redact, node.result_preview, { part: "result", tool: node.name, sessionId });
      return copy;
    }),
  };
}

/** The pending decisions as `api/pending` sends them: arguments, and questions as `ask_user`'s arguments. */
export function redactPending(
  approvals: PendingApproval[],
  questions: PendingQuestion[],
  redact: Redact,
): PendingResponse {
  if (!redact) return { approvals, questions };
  return {
    approvals: approvals.map((a) => {
      const info: RedactInfo = { part: "args", tool: a.request.name, sessionId: a.sessionId };
      return { ...a, request: { ...a.request, args: redacted(redact, a.request.args, info) } };
    }),
    questions: questions.map((q) => {
      const info: RedactInfo = { part: "args", tool: "ask_user", sessionId: q.sessionId };
      return { ...q, question: redacted(redact, q.question, info) as Question };
    }),
  };
}

/** A session row with its last message's snippet (model or user text) through `redact`. */
export function redactSessionRow(row: SessionRow, redact: Redact): SessionRow {
  if (!redact || row.lastSnippet === undefined) return row;
  return { ...row, lastSnippet: redactedText(redact, row.lastSnippet, textInfo(row.sessionId)) };
}

/** A task row with its title and its plan's free text (written by the planner model) through `redact`. */
export function redactTaskRow(row: TaskRow, redact: Redact): TaskRow {
  if (!redact) return row;
  const text = (value: string) => redactedText(redact, value, textInfo(row.sessionId));
  const copy: TaskRow = { ...row, title: text(row.title) };
  if (row.plan) {
    const plan: Plan = {
      ...row.plan,
      goal: text(row.plan.goal),
      steps: row.plan.steps.map((step) => ({
        ...step,
        action: text(step.action),
        ...(step.reason !== undefined && { reason: text(step.reason) }),
      })),
    };
    for (const key of ["risks", "prerequisites", "completion_criteria"] as const) {
      const list = row.plan[key];
      if (list) plan[key] = list.map(text);
    }
    copy.plan = plan;
  }
  return copy;
}

/** The exhaustive check of a switch whose input may still hold kinds the types do not list: returned as it is. */
function unknownKind<T>(value: never): T {
  return value;
}

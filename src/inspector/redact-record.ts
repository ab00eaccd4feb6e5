import type { HistoryRecord } from "../contracts/session-store.js";
import type { ExecutionTreeSnapshot } from "../contracts/execution-tree.js";
import type { AssistantPart, Message } from "../contracts/message.js";
import type { RuntimeTurnRecord } from "../runtime/create-agent-runtime.js";
import type { RedactHook } from "./inspector-options.js";
import { redacted } from "./node-detail.js";

/**
 * A record as the inspector sends it: tool arguments (in assistant messages and approval
 * requests) and results (in tool messages and tool result records) passed through `redact`.
 * The stored record is not changed.
 */
export function redactRecord(record: HistoryRecord, redact: RedactHook | undefined, sessionId: string): HistoryRecord {
  if (!redact) return record;
  switch (record.kind) {
    case "message":
      return { ...record, message: redactMessage(record.message, redact, sessionId) };
    case "tool_result":
      return {
        ...record,
        result: {
          ...record.result,
          result: redacted(redact, record.result.result, { part: "result", tool: record.result.name, sessionId }),
        },
      };
    case "approval": {
      const args = redacted(redact, record.request.args, { part: "args", tool: record.request.name, sessionId });
      const copy = { ...record, request: { ...record.request, args } };
      if (record.answer !== undefined)
        copy.answer = redacted(redact, record.answer, { part: "result", tool: record.request.name, sessionId });
      return copy;
    }
    case "turn": {
      const turn: RuntimeTurnRecord = record;
      if (!turn.executionTree) return record;
      const copy: RuntimeTurnRecord = { ...turn, executionTree: redactTree(turn.executionTree, redact, sessionId) };
      return copy;
    }
    case "reset":
    case "audit":
    case "role":
    case "artifact":
    case "task":
    case "model_call":
    case "prompt":
      // None of these holds tool arguments or results.
      return record;
    default:
      // A host's own kinds (stored as JSON, outside the union) are passed on as they are.
      return unknownKind(record);
  }
}

function redactMessage(message: Message, redact: RedactHook, sessionId: string): Message {
  switch (message.role) {
    case "assistant":
      return {
        ...message,
        ...(message.executionTree && { executionTree: redactTree(message.executionTree, redact, sessionId) }),
        content: message.content.map((part): AssistantPart =>
          part.type === "tool_call"
            ? { ...part, args: redacted(redact, part.args, { part: "args", tool: part.name, sessionId }) }
            : part,
        ),
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
      return message;
    default:
      return unknownKind(message);
  }
}

/** An execution tree snapshot with its argument and result previews passed through `redact`. */
function redactTree(tree: ExecutionTreeSnapshot, redact: RedactHook, sessionId: string): ExecutionTreeSnapshot {
  return {
    ...tree,
    nodes: tree.nodes.map((node) => {
      const copy = { ...node };
      if (node.args_preview !== undefined)
        copy.args_preview = String(redacted(redact, node.args_preview, { part: "args", tool: node.name, sessionId }));
      if (node.result_preview !== undefined)
        copy.result_preview = String(
          redacted(redact, node.result_preview, { part: "result", tool: node.name, sessionId }),
        );
      return copy;
    }),
  };
}

/** The exhaustive check of a switch whose input may still hold kinds the types do not list: returned as it is. */
function unknownKind<T>(value: never): T {
  return value;
}

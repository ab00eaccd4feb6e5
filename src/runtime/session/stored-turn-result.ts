import type { Message } from "../../contracts/message.js";
import type { LoopResult } from "../../contracts/loop-result.js";
import type { ApprovalRecord, HistoryRecord, SessionStore, SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { RuntimeTurnRecord } from "../records/session-state.js";
import { GuardedSessionStore } from "./guarded-session-store.js";

/**
 * The outcome of a turn that already ran, rebuilt from the session's log (a turn sent again under
 * its `runId`, e.g. a retried dispatch job, runs nothing twice). `status`, `text`, the root
 * `messages`, usage, the execution tree and, when suspended, `pendingApprovals` come from the
 * records (usage from the turn's end record, or its final message for turns stored before ends
 * carried it; zero when neither has it).
 * `undefined` when the log has no start of `runId`.
 */
export async function storedTurnResult(
  store: SessionStore,
  session: SessionSummary,
  runId: string,
  created: boolean,
): Promise<TurnResult | undefined> {
  // Called by hosts too, with their own store: a failure is a SessionStoreError, as in the runtime.
  const records = await new GuardedSessionStore(store).load(session.sessionId);
  return turnResultOf(records, session, runId, created);
}

/** {@link storedTurnResult} over records already loaded. */
export function turnResultOf(
  records: readonly HistoryRecord[],
  session: SessionSummary,
  runId: string,
  created: boolean,
): TurnResult | undefined {
  const startIndex = records.findIndex(
    (r) => r.kind === "turn" && (r as RuntimeTurnRecord).runId === runId && (r as RuntimeTurnRecord).phase === "start",
  );
  if (startIndex < 0) return undefined;
  const messages: Message[] = [];
  let end: RuntimeTurnRecord | undefined;
  const asked: ApprovalRecord[] = [];
  const decided = new Set<string>();
  for (const record of records.slice(startIndex + 1)) {
    if (
      record.kind === "turn" &&
      (record as RuntimeTurnRecord).runId === runId &&
      (record as RuntimeTurnRecord).phase === "end"
    ) {
      end = record;
      break;
    }
    if (record.kind === "message" && record.frame === null) messages.push(record.message);
    if (record.kind === "approval") {
      if (record.decision === undefined && record.runId === runId) asked.push(record);
      else if (record.decision !== undefined) decided.add(record.request.requestId);
    }
  }
  // The user message that opened the turn is not one of the turn's own messages.
  const own = messages[0]?.role === "user" ? messages.slice(1) : messages;
  const lastAssistant = [...own].reverse().find((m) => m.role === "assistant");
  const text =
    lastAssistant?.role === "assistant"
      ? lastAssistant.content.map((p) => (p.type === "text" ? p.text : "")).join("")
      : "";
  const status: LoopResult["status"] = end?.status ?? "error";
  const result: TurnResult = {
    status,
    text,
    messages: own,
    executionTree: end?.executionTree ??
      (lastAssistant?.role === "assistant" ? lastAssistant.executionTree : undefined) ?? { version: 1, nodes: [] },
    usage: end?.usage ??
      (lastAssistant?.role === "assistant" ? lastAssistant.usage : undefined) ?? {
        inputTokens: 0,
        outputTokens: 0,
        llmCalls: 0,
        toolCalls: 0,
      },
    sessionId: session.sessionId,
    agentId: session.agentId,
    created,
    runId,
  };
  if (end?.error) result.error = end.error;
  if (typeof end?.reason === "string") result.reason = end.reason;
  else if (end === undefined) result.error = { message: `Turn ${runId} has not ended` };
  if (status === "suspended")
    result.pendingApprovals = asked.filter((a) => !decided.has(a.request.requestId)).map((a) => a.request);
  return result;
}

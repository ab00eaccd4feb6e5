import type { Message } from "../contracts/message.js";
import type { HistoryRecord, MessageRecord, RewindRecord } from "../contracts/session-store.js";

/** Where a root message is in a session's log: its id (see {@link messageIdOf}) and its record's `seq`. */
export interface MessageRef {
  id: string;
  seq: number;
}

/** A message's id: the host's `messageId` when the record has one, else the record's `id`. */
export function messageIdOf(record: Pick<MessageRecord, "id" | "messageId">): string {
  return typeof record.messageId === "string" ? record.messageId : record.id;
}

/**
 * The order that keeps each assistant's tool calls next to their results: messages recorded
 * between an assistant's calls and their results (a silent system message posted while a turn
 * was suspended, say) move to just after the results; while the results are still to come, they
 * move before the calls. The identity for a history already in that order.
 */
export function callsTogetherOrder(history: readonly Message[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < history.length; i++) {
    const message = history[i]!;
    out.push(i);
    if (message.role !== "assistant" || !message.content.some((p) => p.type === "tool_call")) continue;
    const waiting: number[] = [];
    let j = i + 1;
    while (j < history.length && history[j]!.role !== "tool" && history[j]!.role !== "assistant") waiting.push(j++);
    if (waiting.length > 0 && history[j]?.role === "tool") {
      out.push(j, ...waiting);
      i = j;
    } else if (waiting.length > 0 && j >= history.length) {
      // Still waiting for results (suspended turn): results will come after; keep the others after them.
      out.pop();
      out.push(...waiting, i);
      i = j - 1;
    }
  }
  return out;
}

/**
 * The `seq` of the message a rewind resumes before (found by its record's `seq`; by id for a record
 * without one), or `undefined` when that message is not among `refs` (the rewind then changes nothing).
 */
export function rewindSeq(
  refs: readonly MessageRef[],
  rewind: Pick<RewindRecord, "before" | "beforeSeq">,
): number | undefined {
  const { before, beforeSeq } = rewind as { before: unknown; beforeSeq: unknown };
  if (typeof beforeSeq === "number") return refs.some((ref) => ref.seq === beforeSeq) ? beforeSeq : undefined;
  if (typeof before !== "string") return undefined;
  for (let i = refs.length - 1; i >= 0; i--) if (refs[i]!.id === before) return refs[i]!.seq;
  return undefined;
}

/**
 * Which messages a rewind to before the message of `seq` keeps (index for index): those stored
 * before it, and the tool messages that answer their calls (results stay with their calls, also
 * when stored later, so the context never ends between calls and their results). `seqs[i]` is the
 * `seq` of `messages[i]` (a message not stored yet has none: only the second rule can keep it).
 * The set does not depend on the messages' order.
 */
export function keptBefore(
  messages: readonly Message[],
  seqs: readonly (number | undefined)[],
  seq: number,
): boolean[] {
  const before = messages.map((_, i) => (seqs[i] ?? Infinity) < seq);
  const calls = new Set<string>();
  messages.forEach((message, i) => {
    if (before[i] && message.role === "assistant")
      for (const part of message.content) if (part.type === "tool_call") calls.add(part.id);
  });
  return messages.map(
    (message, i) =>
      before[i]! ||
      (message.role === "tool" && message.content.length > 0 && message.content.every((p) => calls.has(p.toolCallId))),
  );
}

/**
 * The root conversation of a session's records (as loaded since its last reset), as the model's
 * context has it: every root message record in order, minus what rewinds took out (see
 * {@link keptBefore}).
 */
export function conversationOf(records: readonly HistoryRecord[]): MessageRecord[] {
  let kept: MessageRecord[] = [];
  for (const record of records) {
    if (record.frame !== null) continue;
    if (record.kind === "message") kept.push(record);
    else if (record.kind === "reset") kept = [];
    else if (record.kind === "rewind") {
      const seq = rewindSeq(
        kept.map((r) => ({ id: messageIdOf(r), seq: r.seq })),
        record,
      );
      if (seq === undefined) continue;
      const keep = keptBefore(
        kept.map((r) => r.message),
        kept.map((r) => r.seq),
        seq,
      );
      kept = kept.filter((_, i) => keep[i]);
    }
  }
  return kept;
}

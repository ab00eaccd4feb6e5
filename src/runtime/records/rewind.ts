import type { Message } from "../../contracts/message.js";
import type { HistoryRecord, NewRecord, RewindRecord, RewoundToolCall } from "../../contracts/session-store.js";
import { InvalidArgumentError } from "../../errors/errors.js";
import { hasControlCharacter } from "../../internal/control-characters.js";
import { hasLoneSurrogate, LONE_SURROGATE_PROBLEM } from "../../internal/lone-surrogate.js";
import { estimateMessageTokens } from "../../context/estimate-tokens.js";
import { keptBefore, rewindSeq, type MessageRef } from "../../sessions/conversation.js";

/** The most tool calls a `rewind` record lists (the rest are counted in its `toolCallsOmitted`). */
export const MAX_REWOUND_TOOL_CALLS = 200;

/** Longest message id a host may give (`SendInput.messageId`, `editOf`, `before`). */
export const MAX_MESSAGE_ID_CHARS = 256;

/**
 * What is wrong with a message id a host gave (`label` names it), if anything: a non-empty string of
 * at most {@link MAX_MESSAGE_ID_CHARS} characters, without control characters or lone surrogates.
 */
export function messageIdProblem(label: string, id: unknown): string | undefined {
  if (typeof id !== "string" || id === "" || id.length > MAX_MESSAGE_ID_CHARS)
    return `${label} must be a string of 1 to ${MAX_MESSAGE_ID_CHARS} characters`;
  if (hasControlCharacter(id)) return `${label} must not hold control characters`;
  if (hasLoneSurrogate(id)) return `${label} ${LONE_SURROGATE_PROBLEM}`;
  return undefined;
}

/** A root message of the session state, beside its message in `SessionState.history`. */
export interface StateMessageRef extends MessageRef {
  /** `estimateMessageTokens` of the message. */
  tokens: number;
  /** The turn that was open when it was stored (for a user message: the turn that answers it). */
  runId: string | undefined;
}

/** A root history and the refs of its messages, index for index. */
export interface RefHistory {
  history: Message[];
  refs: StateMessageRef[];
}

/**
 * A rewind applied to a root history: the messages it keeps (see `keptBefore`), in their order.
 * `undefined` when the message it names is not there (nothing changes). `refs` may be shorter than
 * `history` (messages not stored yet, such as a repair's): those are kept only as results of kept
 * calls. The session-state reader and a turn that rewinds (an edit) both cut through this function.
 */
export function rewoundHistory(
  current: RefHistory,
  rewind: Pick<RewindRecord, "before" | "beforeSeq">,
): (RefHistory & { tokens: number }) | undefined {
  const seq = rewindSeq(current.refs, rewind);
  if (seq === undefined) return undefined;
  const keep = keptBefore(
    current.history,
    current.history.map((_, i) => current.refs[i]?.seq),
    seq,
  );
  const history: Message[] = [];
  const refs: StateMessageRef[] = [];
  let tokens = 0;
  current.history.forEach((message, i) => {
    if (!keep[i]) return;
    history.push(message);
    const ref = current.refs[i];
    if (ref) refs.push(ref);
    tokens += ref ? ref.tokens : estimateMessageTokens(message);
  });
  return { history, refs, tokens };
}

/**
 * The index (in `refs`) of the message `id` names in the current context: its latest message with
 * that id. Throws `InvalidArgumentError` (naming `operation`) when there is none, or when it is a
 * tool message (a context cannot end between an assistant's calls and their results).
 */
export function rewindTarget(operation: string, context: RefHistory, id: string): number {
  let index = -1;
  for (let i = context.refs.length - 1; i >= 0 && index < 0; i--) if (context.refs[i]!.id === id) index = i;
  if (index < 0)
    throw new InvalidArgumentError(`${operation}: no message "${id}" in the session's current conversation`);
  if (context.history[index]!.role === "tool")
    throw new InvalidArgumentError(`${operation}: "${id}" is a tool result, not a user or assistant message`);
  return index;
}

/**
 * The `rewind` record that resumes the context before message `target`, listing the tool calls
 * that ran after it: those of `after` (the session's records after that message) audited as
 * allowed or approved, but for calls still in the `kept` context.
 */
export function rewindRecord(
  target: MessageRef,
  kept: readonly Message[],
  after: readonly HistoryRecord[],
  cause: RewindRecord["cause"],
): NewRecord {
  const keptCalls = new Set<string>();
  for (const message of kept)
    if (message.role === "assistant")
      for (const part of message.content) if (part.type === "tool_call") keptCalls.add(part.id);
  const ran: RewoundToolCall[] = [];
  let omitted = 0;
  for (const record of after) {
    if (record.kind !== "audit" || record.seq <= target.seq) continue;
    const { entry } = record;
    if ((entry.decision !== "allowed" && entry.decision !== "approved") || keptCalls.has(entry.toolCallId)) continue;
    if (ran.length >= MAX_REWOUND_TOOL_CALLS) omitted++;
    else ran.push({ toolCallId: entry.toolCallId, tool: entry.tool, runId: entry.runId, depth: entry.depth });
  }
  return {
    id: globalThis.crypto.randomUUID(),
    frame: null,
    kind: "rewind",
    before: target.id,
    beforeSeq: target.seq,
    toolCalls: ran,
    ...(omitted > 0 && { toolCallsOmitted: omitted }),
    cause,
  };
}

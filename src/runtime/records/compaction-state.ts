import type { Message, UserMessage } from "../../contracts/message.js";
import type { CompactionRecord } from "../../contracts/session-store.js";
import { estimateMessageTokens } from "../../context/estimate-tokens.js";
import { systemMessage } from "../../messages/system-message.js";

/** Origin of the notes the runtime itself writes into a session (reset notes, compaction summaries). */
export const RUNTIME_ORIGIN = "agentry";

/** The first line of the note that opens a compacted context, before the summary. */
export const COMPACTION_NOTE_HEADING =
  "The earlier part of this conversation was compacted. A summary of it follows; the turns after it are verbatim.";

/**
 * The message a compaction's summary becomes at the start of the model's context: a silent
 * `<system_message>` from the runtime (the summary's text is escaped, so it cannot pass for a
 * runtime notice of its own). The same for every reader, so a turn that compacted and a later
 * process that reads the record send the same request.
 */
export function compactionMessage(summary: string): UserMessage {
  return systemMessage(RUNTIME_ORIGIN, `${COMPACTION_NOTE_HEADING}\n\n${summary}`, { silent: true });
}

/** A session's root history as the state reader keeps it: the messages with the `seq` of each record. */
export interface RootHistory {
  messages: Message[];
  seqs: number[];
  /** `estimateMessageTokens` summed over `messages`. */
  tokens: number;
}

/** A root history after a compaction, and what left it. */
export interface CompactedHistory extends RootHistory {
  /** Messages that left the front of the history (the summary note took their place). */
  dropped: number;
  /** Their estimated tokens. */
  droppedTokens: number;
}

/**
 * The root history once `record` applies: the record's summary note, then the messages stored at
 * or after its `keptFromSeq` (none of the earlier ones when it has none). The note counts as
 * stored at seq 0: the seqs stay ascending, and a later compaction never keeps it (its own
 * summary was written from it). Pure: the arrays given are not changed.
 */
export function compactedHistory(history: RootHistory, record: CompactionRecord): CompactedHistory {
  const from = record.keptFromSeq;
  const cut = from === undefined ? history.seqs.length : firstAtOrAfter(history.seqs, from);
  let droppedTokens = 0;
  for (let i = 0; i < cut; i++) droppedTokens += estimateMessageTokens(history.messages[i]!);
  const note = compactionMessage(record.summary);
  return {
    messages: [note, ...history.messages.slice(cut)],
    seqs: [0, ...history.seqs.slice(cut)],
    tokens: history.tokens - droppedTokens + estimateMessageTokens(note),
    dropped: cut,
    droppedTokens,
  };
}

/** The index of the first of the ascending `seqs` that is at least `seq` (`seqs.length` when none is). */
export function firstAtOrAfter(seqs: readonly number[], seq: number): number {
  let low = 0;
  let high = seqs.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (seqs[middle]! < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

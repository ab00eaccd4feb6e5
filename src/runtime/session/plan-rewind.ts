import type { Message } from "../../contracts/message.js";
import type { NewRecord, RewindRecord, SessionStore } from "../../contracts/session-store.js";
import { rewindRecord, rewoundHistory, type RefHistory } from "../records/rewind.js";

/** A rewind about to be stored: its record, and the root history (and its token estimate) it leaves. */
export interface PlannedRewind {
  record: NewRecord;
  history: Message[];
  historyTokens: number;
}

/**
 * Plans the rewind to before `context.refs[index]` (a message of the session's current context):
 * the history it keeps and its `rewind` record, which lists the tool calls that ran after that
 * message (read from the session's records after it).
 */
export async function planRewind(
  store: SessionStore,
  sessionId: string,
  context: RefHistory,
  index: number,
  cause: RewindRecord["cause"],
): Promise<PlannedRewind> {
  const target = context.refs[index]!;
  // The target is in the context: the rewind keeps what is before it.
  const rewound = rewoundHistory(context, { before: target.id, beforeSeq: target.seq })!;
  const after = await store.load(sessionId, { afterSeq: target.seq });
  return {
    record: rewindRecord(target, rewound.history, after, cause),
    history: rewound.history,
    historyTokens: rewound.tokens,
  };
}

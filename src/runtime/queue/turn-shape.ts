import type { UserMessage } from "../../contracts/message.js";
import type { RewindRecord, SessionStore } from "../../contracts/session-store.js";
import { InvalidArgumentError } from "../../errors/errors.js";
import { canonicalJson } from "../../internal/canonical-json.js";
import { rewindTarget } from "../records/rewind.js";
import type { SessionState } from "../records/session-state.js";
import type { TurnRequest } from "../records/turn-request.js";
import { planRewind } from "../session/plan-rewind.js";
import { repairSession, type SessionRepair } from "../session/repair-session.js";

/** What the message ids of a send make of its turn (see `SendInput.messageId`, `editOf`, `regenerate`). */
export interface TurnShape {
  /** The message the turn answers. */
  input: UserMessage | undefined;
  /** The id stored with it (the host's, or the id of the message a regeneration runs again). */
  messageId?: string;
  /** The rewind stored with the turn's start: the context resumes before `state.history[index]`. */
  rewind?: { index: number; cause: RewindRecord["cause"] };
}

/** The index of the latest message of the current context with this id, or -1. */
function indexOfId(state: SessionState, id: string): number {
  for (let i = state.messageRefs.length - 1; i >= 0; i--) if (state.messageRefs[i]!.id === id) return i;
  return -1;
}

/**
 * The run id of the turn that answered this very message, when a send with `messageId` (no edit) is
 * a retry of it: the session's current context has a user message of that id with the same content.
 * A message of that id with other content (or one no turn answered) throws `InvalidArgumentError`.
 */
export function retriedRun(request: TurnRequest, state: SessionState): string | undefined {
  const { messageId, editOf, input } = request;
  if (messageId === undefined || editOf !== undefined || input === undefined) return undefined;
  const index = indexOfId(state, messageId);
  if (index < 0) return undefined;
  const stored = state.history[index]!;
  const runId = state.messageRefs[index]!.runId;
  if (stored.role !== "user" || runId === undefined || canonicalJson(stored.content) !== canonicalJson(input.content))
    throw new InvalidArgumentError(
      `send: messageId "${messageId}" is the id of another message of the session; give editOf to replace that message`,
    );
  return runId;
}

/**
 * The turn a send makes, read from the session's state (under its lease): a regeneration runs the
 * last user message (not silent) again under its id, after a rewind to before it; an edit rewinds
 * to before the user message `editOf` and sends `input` in its place; any other send runs `input`.
 * An unknown `editOf` (or one that is not a user message's), a `messageId` an edit would keep twice,
 * or nothing to regenerate throws `InvalidArgumentError`.
 */
export function shapeTurn(request: TurnRequest, state: SessionState): TurnShape {
  const { messageId, editOf } = request;
  const context = { history: state.history, refs: state.messageRefs };
  if (request.regenerate) {
    let index = state.history.length - 1;
    while (index >= 0 && !(state.history[index]!.role === "user" && !(state.history[index] as UserMessage).silent))
      index--;
    if (index < 0) throw new InvalidArgumentError("send: regenerate found no user message to run again");
    const input = state.history[index] as UserMessage;
    return { input, messageId: state.messageRefs[index]!.id, rewind: { index, cause: "regenerate" } };
  }
  if (editOf === undefined) return { input: request.input, ...(messageId !== undefined && { messageId }) };
  const index = rewindTarget("send: editOf", context, editOf);
  if (state.history[index]!.role !== "user")
    throw new InvalidArgumentError(`send: editOf "${editOf}" is not a user message`);
  const seq = state.messageRefs[index]!.seq;
  if (messageId !== undefined && state.messageRefs.some((ref) => ref.id === messageId && ref.seq < seq))
    throw new InvalidArgumentError(`send: messageId "${messageId}" is the id of an earlier message of the session`);
  return { input: request.input, ...(messageId !== undefined && { messageId }), rewind: { index, cause: "edit" } };
}

/**
 * What must be stored before the turn (see `repairSession`), with the shape's rewind after the
 * repairs: the turn runs on the history the rewind keeps.
 */
export async function shapedRepair(
  store: SessionStore,
  sessionId: string,
  state: SessionState,
  shape: TurnShape,
): Promise<SessionRepair> {
  const repair = repairSession(state);
  if (!shape.rewind) return repair;
  const { index, cause } = shape.rewind;
  const context = { history: repair.history, refs: state.messageRefs };
  const plan = await planRewind(store, sessionId, context, index, cause);
  return {
    ...repair,
    records: [...repair.records, plan.record],
    history: plan.history,
    historyTokens: plan.historyTokens,
  };
}

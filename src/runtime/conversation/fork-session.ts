import type { ForkSessionOptions } from "../../contracts/agent-runtime.js";
import type { NewRecord, SessionSummary } from "../../contracts/session-store.js";
import { InvalidArgumentError } from "../../errors/errors.js";
import { hasLoneSurrogate, LONE_SURROGATE_PROBLEM } from "../../internal/lone-surrogate.js";
import { messageIdProblem, rewindTarget, rewoundHistory } from "../records/rewind.js";
import { repairSession } from "../session/repair-session.js";
import { guardedSession, settledState, type ConversationDeps } from "./conversation-deps.js";

/** Longest name a fork may be given. */
const MAX_NAME_CHARS = 1_000;

/** Throws `InvalidArgumentError` naming every problem of `forkSession`'s options. */
function checkForkOptions(options: unknown): void {
  const { before, name } = (options ?? {}) as { before?: unknown; name?: unknown };
  const problems: string[] = [];
  const problem = before === undefined ? undefined : messageIdProblem("before", before);
  if (problem !== undefined) problems.push(problem);
  if (name !== undefined && (typeof name !== "string" || name.length > MAX_NAME_CHARS))
    problems.push(`name must be a string of at most ${MAX_NAME_CHARS} characters`);
  else if (typeof name === "string" && hasLoneSurrogate(name)) problems.push(`name ${LONE_SURROGATE_PROBLEM}`);
  if (problems.length > 0) throw new InvalidArgumentError(`forkSession: ${problems.join("; ")}`);
}

/**
 * `runtime.forkSession`: with the source idle (nothing running or pending), a new session of its
 * agent in its scope whose log is a copy of the source's current context up to `before` (each
 * message with its id), and whose attributes say where it came from. A context a crash left with
 * unanswered calls is copied as the next turn would repair it.
 */
export async function forkSession(
  deps: Readonly<ConversationDeps>,
  sessionId: string,
  options: ForkSessionOptions = {},
): Promise<SessionSummary> {
  checkForkOptions(options);
  const source = await guardedSession(deps, "forkSession", sessionId, options);
  const { store } = deps;
  const { before, name } = options;
  const { copies, role } = await deps.gate.withIdleSession(sessionId, async (lease) => {
    const state = await settledState(deps, source, lease);
    let context = { history: repairSession(state).history, refs: state.messageRefs };
    if (before !== undefined) {
      const target = context.refs[rewindTarget("forkSession", context, before)]!;
      context = rewoundHistory(context, { before: target.id, beforeSeq: target.seq })!;
    }
    const kept = source.attributes?.role;
    const copied = context.history.map((message, i): NewRecord => ({
      id: globalThis.crypto.randomUUID(),
      frame: null,
      kind: "message",
      message,
      // Every message keeps its id (a message a repair added has none yet: its new record's id is its id).
      ...(context.refs[i] !== undefined && { messageId: context.refs[i].id }),
    }));
    // The role the source's next turn would run in (its last role record, else the one its attributes keep).
    return { copies: copied, role: state.role ?? (typeof kept === "string" ? kept : undefined) };
  });
  const fork = await store.createSession({
    agentId: source.agentId,
    ...(source.scope !== undefined && { scope: source.scope }),
    ...((name ?? source.name) !== undefined && { name: name ?? source.name }),
    attributes: {
      forkedFrom: { sessionId, ...(before !== undefined && { before }) },
      ...(role !== undefined && { role }),
    },
  });
  if (copies.length === 0) return fork;
  try {
    await store.append(fork.sessionId, copies);
  } catch (error) {
    await store.deleteSession(fork.sessionId).catch(() => undefined);
    throw error;
  }
  return (await store.getSession(fork.sessionId)) ?? fork;
}

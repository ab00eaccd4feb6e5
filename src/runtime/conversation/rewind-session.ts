import type { RewindOptions } from "../../contracts/agent-runtime.js";
import { InvalidArgumentError } from "../../errors/errors.js";
import { messageIdProblem, rewindTarget } from "../records/rewind.js";
import { planRewind } from "../session/plan-rewind.js";
import { guardedSession, settledState, type ConversationDeps } from "./conversation-deps.js";

/**
 * `runtime.rewind`: with the session idle (no turn of it running anywhere, nothing pending), appends
 * a `rewind` record: the model's context resumes before message `before`. A turn a crash left open
 * is closed by the next turn, as always (its repair then only sees what the rewind kept).
 */
export async function rewindSession(
  deps: Readonly<ConversationDeps>,
  sessionId: string,
  options: RewindOptions,
): Promise<void> {
  const before = (options as { before?: unknown } | undefined)?.before;
  const problem = messageIdProblem("before", before);
  if (problem !== undefined) throw new InvalidArgumentError(`rewind: ${problem}`);
  const session = await guardedSession(deps, "rewind", sessionId, options);
  await deps.gate.withIdleSession(sessionId, async (lease) => {
    const state = await settledState(deps, session, lease);
    const context = { history: state.history, refs: state.messageRefs };
    const index = rewindTarget("rewind", context, before as string);
    const plan = await planRewind(deps.store, sessionId, context, index, "rewind");
    await deps.store.append(sessionId, [plan.record], { leaseToken: lease.token });
  });
}

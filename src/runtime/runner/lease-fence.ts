import { LeaseLostError } from "../../errors/errors.js";
import type { StartingCall } from "../../loop/level.js";
import type { NewRecord } from "../../contracts/session-store.js";
import { confirmLease } from "../session/session-lease.js";
import { leaseTtlOf } from "../records/runtime-options.js";
import type { RunnerServices } from "./turn-runner-deps.js";
import type { TurnSetup } from "./turn-setup.js";

/** The turn's check before every tool call: see {@link leaseFence}. */
export interface LeaseFence {
  token: number;
  /** Aborted when a check found the lease lost: the turn stops. */
  lost: AbortSignal;
  check: (call: StartingCall) => Promise<void>;
}

/**
 * A process acts only while it holds its lease, and a tool call that may take effect is on record
 * before it does. Before each tool call starts (at any depth, also in a resumed turn) its start is
 * appended fenced by the lease's token: one round trip that both confirms the lease against the
 * store (never by this process's clock: a paused process cannot tell how long it slept) and
 * stores the start, so that after a crash a call without a stored start is known never to have
 * run (the next runtime runs it) and only a started one "may or may not have taken effect". The
 * calls that start together (a parallel batch) share one append. A sub-task's start is only a
 * lease check (`renewLease`): its own calls record theirs. Lost: the turn is aborted at once, so
 * the call does not start. A resumed turn's first act is its fenced start record, so nothing of it
 * runs on a lost lease either. `undefined` for a store without leases.
 */
export function leaseFence(
  deps: Pick<RunnerServices, "options" | "store">,
  setup: TurnSetup,
  sessionId: string,
  runId: string,
): LeaseFence | undefined {
  const token = setup.leaseToken;
  if (token === undefined) return undefined;
  const controller = new AbortController();
  const ttlMs = leaseTtlOf(deps.options);
  const lose = () => controller.abort(new LeaseLostError(sessionId, token));
  const starts = startBatcher(async (toolCallIds) => {
    const record: NewRecord = {
      id: `${runId}:start:${toolCallIds[0]}`,
      frame: null,
      kind: "tool_start",
      runId,
      toolCallIds,
    };
    try {
      await deps.store.append(sessionId, [record], { leaseToken: token });
    } catch (error) {
      if (LeaseLostError.isInstance(error)) lose();
      throw error;
    }
  });
  return {
    token,
    lost: controller.signal,
    check: async (call) => {
      if (controller.signal.aborted) return;
      if (call.kind === "tool") return starts(call.toolCallId);
      if (!(await confirmLease(deps.store, sessionId, token, ttlMs))) lose();
    },
  };
}

/**
 * Gathers the ids asked for before the next microtask (the calls of a parallel batch ask one after
 * another, synchronously) and stores them with one `write`; each caller's promise settles with it.
 */
function startBatcher(write: (toolCallIds: string[]) => Promise<void>): (toolCallId: string) => Promise<void> {
  let batch: { ids: string[]; done: Promise<void> } | undefined;
  return (toolCallId) => {
    if (batch) {
      batch.ids.push(toolCallId);
      return batch.done;
    }
    const ids = [toolCallId];
    // Written after the code running now: the other calls of a parallel batch ask in the same run.
    const done = Promise.resolve().then(() => {
      batch = undefined;
      return write(ids);
    });
    batch = { ids, done };
    return done;
  };
}

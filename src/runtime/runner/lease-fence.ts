import { LeaseLostError } from "../../errors/errors.js";
import { confirmLease, DEFAULT_LEASE_TTL_MS } from "../session/session-lease.js";
import type { RunnerServices } from "./turn-runner-deps.js";
import type { TurnSetup } from "./turn-setup.js";

/** The turn's lease check before every tool call: see {@link leaseFence}. */
export interface LeaseFence {
  token: number;
  /** Aborted when a check found the lease lost: the turn stops. */
  lost: AbortSignal;
  check: () => Promise<void>;
}

/**
 * A process acts only while it holds its lease: before each tool call starts (at any depth, also
 * in a resumed turn) the lease's token is confirmed against the store, one round trip, never by
 * this process's clock (a paused process cannot tell how long it slept). Lost: the turn is aborted
 * at once, so the call does not start; its appends are refused anyway. A resumed turn's first act
 * is its fenced start record, so nothing of it runs on a lost lease either.
 * `undefined` for a store without leases.
 */
export function leaseFence(
  deps: Pick<RunnerServices, "options" | "store">,
  setup: TurnSetup,
  sessionId: string,
): LeaseFence | undefined {
  const token = setup.leaseToken;
  if (token === undefined) return undefined;
  const controller = new AbortController();
  const ttlMs = deps.options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  return {
    token,
    lost: controller.signal,
    check: async () => {
      if (controller.signal.aborted || !(await confirmLease(deps.store, sessionId, token, ttlMs))) {
        controller.abort(new LeaseLostError(sessionId, token));
      }
    },
  };
}

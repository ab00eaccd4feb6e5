import { InvalidArgumentError, SessionNotFoundError } from "../../errors/errors.js";
import type { StopTurnOptions } from "../../contracts/agent-runtime.js";
import { hasLoneSurrogate } from "../../internal/lone-surrogate.js";
import { matchesScopeFilter, tenantGuardFilter } from "../../internal/scope-filter.js";
import type { RuntimeStatus } from "../session/runtime-status.js";
import { busyTurn, stopRunning, type SteeringDeps } from "./steering.js";

/** The longest `reason` `stopTurn` takes (it is stored on the turn's end record). */
const MAX_REASON_CHARS = 200;

/**
 * `runtime.stopTurn`: finds the turn running on the session (here, or in another process that
 * shares the store) and stops it (see `AgentRuntime.stopTurn`). Tenant-guarded: a session outside
 * the guard is "not found".
 */
export async function stopTurn(
  deps: Readonly<SteeringDeps & { status: RuntimeStatus }>,
  sessionId: string,
  options: StopTurnOptions = {},
): Promise<boolean> {
  deps.status.checkOpen();
  if (typeof sessionId !== "string" || sessionId === "")
    throw new InvalidArgumentError("stopTurn: sessionId must be a non-empty string");
  if (typeof options !== "object" || options === null)
    throw new InvalidArgumentError("stopTurn: options must be an object when given");
  const { runId, reason = "stopped" } = options;
  if (runId !== undefined && (typeof runId !== "string" || runId === ""))
    throw new InvalidArgumentError("stopTurn: runId must be a non-empty string when set");
  if (typeof reason !== "string" || reason === "" || reason.length > MAX_REASON_CHARS || hasLoneSurrogate(reason))
    throw new InvalidArgumentError(`stopTurn: reason must be a string of 1 to ${MAX_REASON_CHARS} characters`);
  const guard = tenantGuardFilter(
    "stopTurn",
    options.scope === undefined && options.scopePrefix === undefined ? undefined : options,
  );
  const session = await deps.store.getSession(sessionId);
  // Another tenant's session is as unknown as a missing one.
  if (!session || !matchesScopeFilter(session.scope, guard))
    throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
  const running = await busyTurn(deps, session);
  if (!running) return false;
  if (runId !== undefined && runId !== running.runId && runId !== running.chainRunId) return false;
  return stopRunning(deps, session, running, reason, true);
}

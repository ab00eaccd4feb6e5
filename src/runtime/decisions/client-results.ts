import { ApprovalNotFoundError, InvalidArgumentError } from "../../errors/errors.js";
import type { ClientToolResult, PendingQuery, PendingToolCall, TurnResult } from "../../contracts/agent-runtime.js";
import { checkedJson } from "../../internal/host-context.js";
import { matchesScopeFilter, tenantGuardFilter } from "../../internal/scope-filter.js";
import { listPending, type PendingReader } from "../session/pending-listing.js";
import { decide, type DecideDeps } from "./decide.js";

/** The largest output `submitToolResult` takes, in characters of its JSON (256 KiB). */
export const MAX_CLIENT_OUTPUT_CHARS = 262_144;

/** The calls of client tools waiting for their result (`runtime.pendingToolCalls`). */
export async function pendingToolCalls(
  reader: Readonly<PendingReader>,
  query: PendingQuery,
): Promise<PendingToolCall[]> {
  return (await listPending(reader, query))
    .filter((pending) => pending.request.client === true)
    .map((pending) => ({
      toolCallId: pending.request.toolCallId,
      name: pending.request.name,
      args: pending.request.args,
      sessionId: pending.sessionId,
      agentId: pending.agentId,
      runId: pending.runId,
      at: pending.at,
      ...(pending.chain !== undefined && { chain: pending.chain }),
    }));
}

/**
 * Gives a client tool call its result (`runtime.submitToolResult`): finds the pending call by its
 * id within the tenant guard (and `sessionId`, when given), then decides its request exactly once.
 * A call no longer pending is found in `sessionId`'s log, so a repeated submit gets "already
 * resolved" (or, with the same `decisionId`, the resumed turn's outcome) rather than "not found".
 */
export async function submitToolResult(
  deps: Readonly<DecideDeps>,
  reader: Readonly<PendingReader>,
  toolCallId: string,
  result: ClientToolResult,
): Promise<TurnResult> {
  const operation = "submitToolResult";
  deps.status.checkOpen();
  if (typeof toolCallId !== "string" || toolCallId === "")
    throw new InvalidArgumentError(`${operation}: toolCallId must be a non-empty string`);
  if (typeof result !== "object" || result === null)
    throw new InvalidArgumentError(`${operation}: give { output } (the client's result)`);
  const { isError, sessionId, decisionId, scope, scopePrefix } = result;
  if (isError !== undefined && typeof isError !== "boolean")
    throw new InvalidArgumentError(`${operation}: isError must be a boolean when set`);
  if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === ""))
    throw new InvalidArgumentError(`${operation}: sessionId must be a non-empty string when set`);
  if (decisionId !== undefined && (typeof decisionId !== "string" || decisionId === ""))
    throw new InvalidArgumentError(`${operation}: decisionId must be a non-empty string when set`);
  if (result.output === undefined) throw new InvalidArgumentError(`${operation}: output is required (JSON)`);
  const output = checkedJson(operation, result.output, "output", MAX_CLIENT_OUTPUT_CHARS);
  const guard = scope === undefined && scopePrefix === undefined ? undefined : { scope, scopePrefix };
  const filter = tenantGuardFilter(operation, guard);
  const requestId = await requestOf(reader, toolCallId, { ...guard, ...(sessionId !== undefined && { sessionId }) });
  const fallback =
    requestId ?? (sessionId === undefined ? undefined : await decidedRequest(reader, sessionId, toolCallId, filter));
  if (fallback === undefined) throw notFound(toolCallId);
  return decide(
    deps,
    fallback,
    {
      approved: true,
      ...(decisionId !== undefined && { decisionId }),
      ...(scope !== undefined && { scope }),
      ...(scopePrefix !== undefined && { scopePrefix }),
    },
    { kind: "client", output, isError: isError === true },
  );
}

/** The request id of the pending client call `toolCallId` among those `query` lists; several is the caller's ambiguity. */
async function requestOf(
  reader: Readonly<PendingReader>,
  toolCallId: string,
  query: PendingQuery,
): Promise<string | undefined> {
  const matches = (await listPending(reader, query)).filter(
    (pending) => pending.request.client === true && pending.request.toolCallId === toolCallId,
  );
  if (matches.length > 1)
    throw new InvalidArgumentError(
      `submitToolResult: ${matches.length} pending client tool calls have the id "${toolCallId}" (in sessions ${matches.map((m) => m.sessionId).join(", ")}): pass sessionId`,
    );
  return matches[0]?.requestId;
}

/** The request of a client call `toolCallId` of session `sessionId` that is no longer pending (decided, or superseded). */
async function decidedRequest(
  reader: Readonly<PendingReader>,
  sessionId: string,
  toolCallId: string,
  filter: ReturnType<typeof tenantGuardFilter>,
): Promise<string | undefined> {
  const session = await reader.store.getSession(sessionId);
  if (!session || !matchesScopeFilter(session.scope, filter)) return undefined;
  const state = await reader.states.read(session);
  let found: string | undefined;
  for (const [requestId, { request }] of state.approvals)
    if (request.request.client === true && request.request.toolCallId === toolCallId) found = requestId;
  return found;
}

/** "Not found", as for an unknown approval request: the same for another tenant's call. */
function notFound(toolCallId: string): ApprovalNotFoundError {
  const error = new ApprovalNotFoundError(toolCallId);
  error.message = `No pending client tool call "${toolCallId}"`;
  return error;
}

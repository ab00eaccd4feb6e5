import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { SessionSummary } from "../contracts/session-store.js";
import type { SessionDetailResponse, TurnNode } from "./inspector-api-types.js";
import { notFound } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { inScope } from "./inspector-security.js";
import { rowOf, stateOfRecords, waitingSessions } from "./session-rows.js";
import { buildTurnTree } from "./turn-tree.js";
import { turnChains } from "./turn-records.js";
import type { RedactHook } from "./inspector-options.js";
import { loadRedacted, redactSessionRow } from "./redact-record.js";

/** The session, when it exists and is within the caller's scopes; else a 404 (the same for both). */
export async function visibleSession(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  sessionId: string,
): Promise<SessionSummary> {
  const session = await runtime.store.getSession(sessionId);
  if (!session || !inScope(identity, session.scope)) throw notFound();
  return session;
}

/** A session with the execution tree of every turn, built from its redacted records. */
export async function sessionDetail(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  sessionId: string,
  redact: RedactHook | undefined,
): Promise<SessionDetailResponse> {
  const session = await visibleSession(runtime, identity, sessionId);
  const [records, waiting] = await Promise.all([
    loadRedacted(runtime, redact, sessionId),
    waitingSessions(runtime, identity),
  ]);
  const turns: TurnNode[] = turnChains(records).map((chain, i) => buildTurnTree(chain, i + 1));
  const lastSeq = records.at(-1)?.seq ?? 0;
  const row = redactSessionRow(rowOf(session, stateOfRecords(records, waiting.has(sessionId))), redact);
  return { session: row, turns, lastSeq };
}

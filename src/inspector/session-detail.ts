import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { SessionSummary } from "../contracts/session-store.js";
import type { SessionDetailResponse, TurnNode } from "./inspector-api-types.js";
import { notFound } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { inScope } from "./inspector-security.js";
import { rowOf, stateOfRecords, waitingSessions } from "./session-rows.js";
import { buildTurnTree } from "./turn-tree.js";
import { turnChains } from "./turn-records.js";

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

/** A session with the execution tree of every turn. */
export async function sessionDetail(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  sessionId: string,
): Promise<SessionDetailResponse> {
  const session = await visibleSession(runtime, identity, sessionId);
  const [records, waiting] = await Promise.all([runtime.store.load(sessionId), waitingSessions(runtime, identity)]);
  const turns: TurnNode[] = turnChains(records).map((chain, i) => buildTurnTree(chain, i + 1));
  const lastSeq = records.at(-1)?.seq ?? 0;
  return { session: rowOf(session, stateOfRecords(records, waiting.has(sessionId))), turns, lastSeq };
}

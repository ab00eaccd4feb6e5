import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { SessionSummary } from "../contracts/session-store.js";
import type { RuntimeTurnRecord } from "../runtime/create-agent-runtime.js";
import type { CostGroupBy, CostResponse, CostRow } from "./inspector-api-types.js";
import { InspectorHttpError } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { inScope } from "./inspector-security.js";

/** Sessions read for one cost view at most (the most recently updated ones). */
export const MAX_COST_SESSIONS = 2000;

/**
 * Tokens, cost and turns per scope, agent or UTC day, summed from the usage stored on the turn end
 * records of the caller's sessions, for turns that ended within `[from, to)` (ISO dates or times;
 * both optional). Reads the sessions updated since `from`, newest first, at most
 * {@link MAX_COST_SESSIONS}.
 */
export async function costRows(runtime: AgentRuntime, identity: InspectorIdentity, url: URL): Promise<CostResponse> {
  const groupBy = (url.searchParams.get("groupBy") ?? "agent") as CostGroupBy;
  if (groupBy !== "scope" && groupBy !== "agent" && groupBy !== "day")
    throw new InspectorHttpError(400, "groupBy must be scope, agent or day");
  const from = timeParam(url, "from");
  const to = timeParam(url, "to");
  const sessions = await runtime.store.listSessions({
    ...(identity.scopePrefix !== "" && { scopePrefix: identity.scopePrefix }),
    limit: MAX_COST_SESSIONS,
  });
  const rows = new Map<string, CostRow>();
  for (const session of sessions) {
    if (!inScope(identity, session.scope)) continue;
    if (from !== undefined && session.updatedAt < from) break; // newest first: the rest are older
    for (const end of await turnEnds(runtime, session)) {
      if ((from !== undefined && end.at < from) || (to !== undefined && end.at >= to) || !end.usage) continue;
      const key =
        groupBy === "scope" ? (session.scope ?? "") : groupBy === "agent" ? session.agentId : end.at.slice(0, 10);
      const row = rows.get(key) ?? { key, tokens: { input: 0, output: 0, cached: 0 }, costUsd: 0, turns: 0 };
      row.tokens.input += end.usage.inputTokens;
      row.tokens.output += end.usage.outputTokens;
      row.tokens.cached = (row.tokens.cached ?? 0) + (end.usage.cachedInputTokens ?? 0);
      row.costUsd += end.usage.costUsd ?? 0;
      row.turns++;
      rows.set(key, row);
    }
  }
  return { rows: [...rows.values()].sort((a, b) => b.costUsd - a.costUsd || a.key.localeCompare(b.key)) };
}

async function turnEnds(runtime: AgentRuntime, session: SessionSummary): Promise<RuntimeTurnRecord[]> {
  const records = await runtime.store.load(session.sessionId, { frame: null });
  return records.filter((r): r is RuntimeTurnRecord => r.kind === "turn" && r.phase === "end");
}

function timeParam(url: URL, name: string): string | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw new InspectorHttpError(400, `${name} must be a date`);
  return new Date(time).toISOString();
}

import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { CompactionResult } from "../../contracts/compaction.js";
import type { TenantGuard } from "../../contracts/tenant-guard.js";
import { estimateSystemTokens } from "../../context/estimate-tokens.js";
import { InvalidArgumentError, SessionBusyError, SessionNotFoundError } from "../../errors/errors.js";
import { matchesScopeFilter, tenantGuardFilter } from "../../internal/scope-filter.js";
import { TurnBudget } from "../../loop/budget.js";
import type { RoleLookup } from "../../modes/role-lookup.js";
import type { AgentRuntimeOptions } from "../records/runtime-options.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { RunningTurns } from "../session/running-turns.js";
import type { RuntimeStatus } from "../session/runtime-status.js";
import type { SessionGate } from "../session/session-gate.js";
import type { SessionStateCache } from "../session/session-state-cache.js";
import type { EventPublisher } from "../events/event-publisher.js";
import { agentOf, sessionRole } from "../agents/agent-lookups.js";
import type { PrepareAgent } from "../agents/prepared-agents.js";
import { compactionOf, compactionSettings, planCompaction } from "./compact-context.js";
import { writeSummary } from "./summary-call.js";

/** What `runtime.compact` needs. */
export interface CompactSessionDeps {
  options: AgentRuntimeOptions;
  status: RuntimeStatus;
  registry: AgentRegistry;
  roleOf: RoleLookup;
  store: GuardedSessionStore;
  states: SessionStateCache;
  gate: SessionGate;
  running: RunningTurns;
  prepare: PrepareAgent;
  events: Pick<EventPublisher, "publish">;
}

/** The most characters of `runtime.compact`'s `instructions` (they reach the summary's writer). */
export const MAX_COMPACT_INSTRUCTIONS_CHARS = 8_000;

/**
 * `runtime.compact`: as the session's next piece of work, under its lease (refused at once with
 * `SessionBusyError` while a turn of it runs here or another runtime holds it), compacts its
 * context the way a turn past `triggerTokens` would (see `compactBeforeTurn`), keeping a turn that
 * waits on a decision whole. The summary call gets a budget of its own, from the agent's limits.
 */
export async function compactSession(
  deps: Readonly<CompactSessionDeps>,
  sessionId: string,
  options: ({ instructions?: string } & TenantGuard) | undefined = {},
): Promise<CompactionResult> {
  deps.status.checkOpen();
  const { instructions, ...guard } = options ?? {};
  const filter = tenantGuardFilter("compact", guard);
  if (instructions !== undefined && typeof instructions !== "string")
    throw new InvalidArgumentError("compact: instructions must be a string when given");
  if (instructions !== undefined && instructions.length > MAX_COMPACT_INSTRUCTIONS_CHARS)
    throw new InvalidArgumentError(
      `compact: instructions must be at most ${MAX_COMPACT_INSTRUCTIONS_CHARS} characters`,
    );
  const session = typeof sessionId === "string" ? await deps.store.getSession(sessionId) : undefined;
  // Outside the tenant, a session is as unknown as one that does not exist.
  if (!session || !matchesScopeFilter(session.scope, filter))
    throw new SessionNotFoundError(`Unknown session "${String(sessionId)}"`, { sessionId: String(sessionId) });
  if (deps.running.has(sessionId)) throw new SessionBusyError(sessionId, 0);
  return deps.gate.withSession(
    sessionId,
    async (lease) => {
      const state = await deps.states.read(session);
      const agent = agentOf(deps.registry, session.agentId);
      const role = sessionRole(deps.roleOf, agent, session, state);
      const hostContext = state.chainRunId === undefined ? undefined : state.hostContexts.get(state.chainRunId);
      const chatContext = (state.chainRunId && state.chatContexts.get(state.chainRunId)) || { kind: "thread" as const };
      const prepared = deps.prepare(agent, session, chatContext, role, hostContext);
      const settings = compactionSettings(deps.options.compaction, prepared.budget);
      const otherTokens = estimateSystemTokens(prepared.systemPrompt);
      const before = state.historyTokens + otherTokens;
      const plan = planCompaction({
        history: state.history,
        turnStarts: state.turnStarts,
        keepRecentTurns: settings.keepRecentTurns,
        triggerTokens: settings.triggerTokens,
        otherTokens,
        // A turn that waits on a decision (or never ended) stays whole: its pending call and what it needs.
        keepLastTurn: state.suspended !== undefined || state.openTurn !== undefined,
      });
      if (!plan) return { compacted: false, tokensBefore: before, tokensAfter: before, summarizedMessages: 0 };
      const written = await writeSummary({
        messages: state.history.slice(0, plan.cut),
        settings,
        caller: { agentId: agent.agentId, sessionId, ...(role !== null && { role }) },
        ...(session.scope !== undefined && { scope: session.scope }),
        ...(instructions !== undefined && { instructions }),
        prepared,
        external: prepared.external === true,
        budget: new TurnBudget(prepared.budget),
        reserveCalls: 0,
        pricing: deps.options.pricing,
        signal: lease.lost,
      });
      const compaction = compactionOf({
        recordId: globalThis.crypto.randomUUID(),
        sessionId,
        history: state.history,
        plan,
        written,
        trigger: "manual",
        otherTokens,
        historyTokens: state.historyTokens,
        ...(instructions !== undefined && { instructions }),
      });
      await deps.store.append(sessionId, [compaction.record], { leaseToken: lease.token });
      for (const event of compaction.events) deps.events.publish(session, event);
      return compaction.result;
    },
    // Refused, not queued, while another runtime holds the session (its turn runs there).
    { waitMs: 0 },
  );
}

import { estimateMessageTokens, estimateSystemTokens } from "../../context/estimate-tokens.js";
import type { TurnBudget } from "../../loop/budget.js";
import { carryQueued, emergencyReset, type SessionRepair } from "../session/repair-session.js";
import { compactionOf, compactionSettings, planCompaction } from "./compact-context.js";
import { writeSummary } from "./summary-call.js";
import type { TurnScope } from "./turn-scope.js";

/**
 * What a new turn starts from, before its first model call: its session's repaired history,
 * compacted when the context (system prompt, history, new message) reaches `triggerTokens`, then
 * reset when it still reaches `emergencyContextLimit` (the last resort). The compaction's summary
 * call is counted in the turn's `budget`; it never fails the turn (a failed summary falls back to
 * the model-free note, with a warning). A resumed turn (no `fitContext`) starts from its history as it is.
 */
export async function fitContext(
  scope: TurnScope,
  budget: TurnBudget,
  signal: AbortSignal | undefined,
): Promise<SessionRepair> {
  const { setup, deps } = scope;
  const repair: SessionRepair = {
    records: setup.preface ?? [],
    events: setup.prefaceEvents ?? [],
    history: setup.history,
    historyTokens: setup.historyTokens,
  };
  if (!setup.fitContext) return repair;
  const compacted = await compactBeforeTurn(scope, budget, signal, repair);
  const reset = emergencyReset(compacted, setup.input, setup.prepared.systemPrompt, deps.options.emergencyContextLimit);
  // Messages queued behind a decision outlive the reset (the one running now is not queued any more).
  return carryQueued(reset, setup.fitContext.queued, scope.runId);
}

/** {@link fitContext}'s compaction: `repair` with the compaction record, its events and the compacted history. */
async function compactBeforeTurn(
  scope: TurnScope,
  budget: TurnBudget,
  signal: AbortSignal | undefined,
  repair: SessionRepair,
): Promise<SessionRepair> {
  const { setup, deps, sessionId, runId } = scope;
  const { prepared, session, agent } = setup;
  const options = deps.options.compaction;
  // A host handler keeps its own context: it is handed every message, as it always was.
  if (options === false || prepared.external || !setup.fitContext) return repair;
  const settings = compactionSettings(options, prepared.budget);
  const otherTokens =
    estimateSystemTokens(prepared.systemPrompt) + (setup.input ? estimateMessageTokens(setup.input) : 0);
  if (repair.historyTokens + otherTokens < settings.triggerTokens) return repair;
  const plan = planCompaction({
    history: repair.history,
    turnStarts: setup.fitContext.turnStarts,
    keepRecentTurns: settings.keepRecentTurns,
    triggerTokens: settings.triggerTokens,
    otherTokens,
    keepLastTurn: false,
  });
  if (!plan) return repair;
  const written = await writeSummary({
    messages: repair.history.slice(0, plan.cut),
    settings,
    caller: { agentId: agent.agentId, sessionId, runId, ...(setup.role && { role: setup.role }) },
    ...(session.scope !== undefined && { scope: session.scope }),
    prepared,
    external: false,
    budget,
    // The turn's own first model call must still be possible after the summary's.
    reserveCalls: 1,
    pricing: deps.options.pricing,
    signal,
  });
  setup.lineage.counters.llmCalls += written.llmCalls;
  // A stopped turn stops here: nothing is compacted, the loop ends it at once.
  if (written.aborted) return repair;
  const compaction = compactionOf({
    recordId: `${runId}:compaction`,
    sessionId,
    history: repair.history,
    plan,
    written,
    trigger: "auto",
    otherTokens,
    historyTokens: repair.historyTokens,
    runId,
  });
  return {
    records: [...repair.records, compaction.record],
    events: [...repair.events, ...compaction.events],
    history: compaction.history,
    historyTokens: compaction.historyTokens,
  };
}

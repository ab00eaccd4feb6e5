import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { LoopResult } from "../../contracts/loop-result.js";
import type { NewRecord, SessionSummary } from "../../contracts/session-store.js";
import { estimateMessageTokens } from "../../context/estimate-tokens.js";
import { toWellFormed } from "../../internal/lone-surrogate.js";
import { DEFAULT_BUDGET, TurnBudget } from "../../loop/budget.js";
import { runLoop } from "../../loop/run-unified-agent-loop.js";
import { toJsonSchema } from "../../schema/to-json-schema.js";
import type { PreparedAgent } from "../agents/prepare-agent.js";
import type { Lineage } from "../records/lineage.js";
import type { NewRuntimeMessageRecord, NewRuntimeTurnRecord } from "../records/session-state.js";
import type { SessionRepair } from "../session/repair-session.js";
import { fitContext } from "./fit-context.js";
import { leaseFence } from "./lease-fence.js";
import { modeEffects } from "./mode-effects.js";
import { approverOf, persistEvent } from "./persist-event.js";
import { PromptDigests, StoredPrompts } from "./model-call-records.js";
import type { RuntimeToolHost } from "./runtime-tool-host.js";
import { turnScope, type TurnScope } from "./turn-scope.js";
import type { RunnerServices, TurnRunnerDeps } from "./turn-runner-deps.js";
import type { TurnSetup } from "./turn-setup.js";

/** Characters of a turn's answer kept as its session's `lastSnippet`. */
const SNIPPET_CHARS = 200;

/** Runs turns: one call, one turn of the loop, persisted as it goes (see {@link TurnRunner.runTurn}). */
export interface TurnRunner {
  /**
   * Runs one turn of the loop and persists it as it goes: the turn start, every `message` event
   * (root and sub-task frames) before the loop moves past it, approval requests before the handler
   * is asked, approval decisions, every ended tool call's result with its audit record, then the
   * turn end and the session's snippet. Events reach the turn's consumer and `runtime.events`.
   * It never queues: its caller (the turn queue) holds the session.
   */
  runTurn(setup: TurnSetup): Promise<TurnResult>;
}

/** The turn runner of a runtime (it keeps the digests of the prompts it stored). */
export function createTurnRunner(deps: Readonly<TurnRunnerDeps>): TurnRunner {
  const services: RunnerServices = { ...deps, storedPrompts: new StoredPrompts(), promptDigests: new PromptDigests() };
  return { runTurn: (setup) => runAndPersist(services, setup) };
}

/**
 * Runs one turn of the loop and persists it as it goes: the turn start, every `message` event
 * (root and sub-task frames) before the loop moves past it, approval requests before the handler
 * is asked, approval decisions, every ended tool call's result with its audit record, then the
 * turn end and the session's snippet. Events reach the turn's consumer and `runtime.events`.
 */
async function runAndPersist(deps: RunnerServices, setup: TurnSetup): Promise<TurnResult> {
  const scope = turnScope(deps, setup);
  const { sessionId, runId, audit, publish } = scope;
  const { agent, prepared, lineage } = setup;
  const fence = leaseFence(deps, setup, sessionId, runId);
  const signals = [setup.signal, setup.leaseLost, fence?.lost].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const budget = new TurnBudget(
    deadlineBudget(lineageBudget(prepared.budget, lineage, setup.chain), setup.session),
    Date.now(),
    setup.parentBudget,
  );
  // Compaction (its summary call is the turn's) and the emergency reset come before the turn starts.
  const opening = await fitContext(scope, budget, signal);
  await openTurn(scope, opening);
  const effects = modeEffects(scope);

  // The opening's history is this turn's own array (a fresh copy of the session's state): extend it in place.
  const history = opening.history;
  let historyTokens = opening.historyTokens;
  if (setup.input) {
    history.push(setup.input);
    historyTokens += estimateMessageTokens(setup.input);
  }
  const host: RuntimeToolHost = {
    sessionId,
    agentId: agent.agentId,
    runId,
    context: setup.context,
    chain: setup.chain,
    lineage,
    giveLlmCalls: (count) => {
      budget.givenLlmCalls += count;
    },
    budget,
    turns: setup.turns,
  };
  const loop = runLoop(
    {
      provider: prepared.provider,
      model: prepared.model,
      systemPrompt: prepared.systemPrompt,
      history,
      tools: prepared.tools,
      budget,
      modelOptions: prepared.modelOptions,
      policy: prepared.policy,
      approve: approverOf(scope),
      ...(deps.options.hooks && { hooks: deps.options.hooks }),
      ...(setup.context !== undefined && { context: setup.context }),
      ...(setup.session.scope !== undefined && { scope: setup.session.scope }),
      runId,
      sessionId,
      agentId: agent.agentId,
      ...(signal && { signal }),
      ...(setup.resume && { resume: setup.resume }),
      ...(setup.outputSchema !== undefined && { outputSchema: setup.outputSchema }),
      ...(deps.options.pricing && { pricing: deps.options.pricing }),
      ...(deps.options.toolTimeoutMs !== undefined && { toolTimeoutMs: deps.options.toolTimeoutMs }),
    },
    // `role` reaches the provider as `request.caller.role` (agent, session and run come from the options above).
    {
      historyTokens,
      runtimeHost: host,
      callKeyPrefix: `${sessionId}:${setup.chainRunId ?? runId}`,
      ...(fence && { beforeToolCall: fence.check, leaseToken: fence.token }),
      ...(setup.role && { role: setup.role }),
      onModelCall: scope.models.observe,
      ...(scope.control && { stepBoundary: (root: boolean) => scope.control!.boundary(root) }),
    },
  );
  let result: LoopResult | undefined;
  try {
    for await (const event of loop) {
      audit.observe(event);
      if (event.type === "done") {
        result = event.result;
        break;
      }
      if (await persistEvent(scope, effects, event)) publish(event);
    }
  } finally {
    scope.control?.dispose();
    // A store failure leaves the loop mid-turn: stop it (aborts tools and the provider call).
    if (!result) await loop.return(undefined as never);
  }
  if (!result) throw new Error("The loop ended without a done event");
  const ended = await closeTurn(scope, result);
  if (scope.control?.mayHaveUnread()) setup.unreadSteers?.();
  return ended;
}

/**
 * Stores the turn start (after the records of `opening`: repairs, a compaction, a reset; with the input) and publishes
 * the events from before the loop.
 */
async function openTurn(scope: TurnScope, opening: Pick<SessionRepair, "records" | "events">): Promise<void> {
  const { setup, runId, audit, publish } = scope;
  const start: NewRuntimeTurnRecord = {
    id: `${runId}:${scope.next()}`,
    frame: null,
    kind: "turn",
    runId,
    phase: "start",
  };
  if (setup.resumeOf !== undefined) start.resumeOf = setup.resumeOf;
  start.chatContext = setup.chatContext;
  if (setup.context !== undefined) start.context = setup.context;
  if (setup.waiter !== undefined && setup.resumeOf === undefined) start.waiter = setup.waiter;
  if (setup.outputSchema !== undefined) start.outputSchema = toJsonSchema(setup.outputSchema);
  start.turn = setup.turn ?? 1;
  // Its tool calls' starts are stored (see `leaseFence`): a call without one never ran.
  if (setup.leaseToken !== undefined) start.recordsStarts = true;
  // Calls whose approvals the repair retires (superseded, interrupted) are audited here.
  const retired = opening.records.length > 0 ? await audit.retired(opening.records) : [];
  const records: NewRecord[] = [...opening.records, ...retired, start];
  if (setup.input) {
    const { inputMessageId: messageId } = setup;
    const input: NewRuntimeMessageRecord = {
      id: `${runId}:${scope.next()}`,
      frame: null,
      kind: "message",
      message: setup.input,
      ...(messageId !== undefined && { messageId }),
    };
    // A steered message that ran as its own turn: taken (a retried sender gets this turn's outcome).
    if (setup.steerOf !== undefined) input.steerOf = setup.steerOf;
    records.push(input);
  }
  await scope.append(records);
  for (const record of retired) audit.deliver(record.entry);
  for (const event of setup.prepared.warnings) publish({ ...event });
  for (const event of opening.events) publish({ ...event });
}

/**
 * A turn set off by another agent (delegated, background, dispatched) gets at most the model calls left
 * of its lineage; only a root turn (no hops, nobody waiting in its chain) has its own.
 */
function lineageBudget(
  budget: PreparedAgent["budget"],
  lineage: Lineage,
  chain: readonly string[],
): PreparedAgent["budget"] {
  if (lineage.hops === 0 && !lineage.dispatched && chain.length === 0) return budget;
  const remaining = Math.max(0, lineage.counters.maxLlmCalls - lineage.counters.llmCalls);
  return {
    ...budget,
    maxTotalLlmCalls: Math.min(budget.maxTotalLlmCalls ?? DEFAULT_BUDGET.maxTotalLlmCalls, remaining),
  };
}

/**
 * A background agent with a time budget (`deadlineAt`): no turn of it runs past the deadline
 * (one that starts after it stops at once).
 */
function deadlineBudget(budget: PreparedAgent["budget"], session: SessionSummary): PreparedAgent["budget"] {
  const deadline = session.attributes?.deadlineAt;
  if (typeof deadline !== "number" || !Number.isFinite(deadline)) return budget;
  const left = Math.max(0, deadline - Date.now());
  return { ...budget, maxWallClockMs: Math.min(budget.maxWallClockMs ?? DEFAULT_BUDGET.maxWallClockMs, left) };
}

/** Stores the turn end and the session's snippet, waits for the audit deliveries, publishes `done`. */
async function closeTurn(scope: TurnScope, result: LoopResult): Promise<TurnResult> {
  const { deps, setup, sessionId, runId } = scope;
  const { store } = deps;
  const end: NewRuntimeTurnRecord = {
    id: `${runId}:${scope.next()}`,
    frame: null,
    kind: "turn",
    runId,
    phase: "end",
    status: result.status,
    usage: result.usage,
  };
  if (result.status === "suspended") {
    end.resume = { results: result.resume?.results ?? {} };
    // Remembered only while they wait (a store without the index then needs no scan for them).
    for (const request of result.pendingApprovals ?? [])
      if (request.waitsOn === undefined) deps.approvalSessions.set(request.requestId, sessionId);
  } else if (result.status !== "complete" && result.executionTree.nodes.length > 0) {
    // A turn stopped early (budget, iteration limit, error, abort) still keeps its
    // execution tree; a complete turn has it on its final assistant message.
    end.executionTree = result.executionTree;
  }
  if (result.error) end.error = result.error;
  const stopReason = result.status === "aborted" ? setup.stopReason?.() : undefined;
  if (stopReason !== undefined) end.reason = stopReason;
  await scope.append([...scope.models.unsentRecords(), end]);
  // Whoever waits on the session (a steering or interrupting sender, queued messages) looks again.
  deps.store.hintSession(sessionId);
  const snippet = result.text.trim();
  if (snippet !== "") {
    await store.updateSession(sessionId, {
      // Stores refuse a lone surrogate in a session's fields: the model's text may hold one, and the cut may make one.
      lastSnippet: toWellFormed(snippet.length > SNIPPET_CHARS ? snippet.slice(0, SNIPPET_CHARS - 1) + "…" : snippet),
    });
  }
  // The turn ends once the `audit` option has every entry (failures are reported before `done`).
  await scope.audit.settled();
  // A turn that ran: its status is the loop's (a done event's result is a LoopResult).
  const turnResult: TurnResult & LoopResult = {
    ...result,
    sessionId,
    agentId: setup.agent.agentId,
    created: setup.created,
    runId,
  };
  if (stopReason !== undefined) {
    turnResult.reason = stopReason;
    scope.publish({ type: "turn_stopped", reason: stopReason, depth: 0, parentId: null });
  }
  // The host decides what waiting calls wait on: those are the requests it is shown.
  if (result.pendingApprovals?.some((request) => request.waitsOn !== undefined)) {
    turnResult.pendingApprovals = result.pendingApprovals.flatMap((request) =>
      request.waitsOn === undefined ? [request] : (scope.surfaced.get(request.requestId) ?? []).map((s) => s.request),
    );
  }
  scope.publish({ type: "done", result: turnResult, depth: 0, parentId: null });
  return turnResult;
}

import type { JsonSchema, AnyZodSchema, JsonValue } from "../../contracts/json-schema.js";
import { toJsonSchema } from "../../schema/to-json-schema.js";
import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { Message, ToolResultPart } from "../../contracts/message.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { ApprovalHandler, ApprovalRequest, LoopResult, ResumeState } from "../../contracts/loop-result.js";
import { runLoop } from "../../loop/run-unified-agent-loop.js";
import { estimateMessageTokens } from "../../context/estimate-tokens.js";
import type { HistoryRecord, NewRecord, SessionSummary } from "../../contracts/session-store.js";
import type { ChatContext } from "../../contracts/tool-policy.js";
import type { RuntimeEvent, TurnResult } from "../../contracts/agent-runtime.js";
import type { PreparedAgent } from "./prepare-agent.js";
import type { RuntimeToolHost } from "../agent-tools/agent-tool-caller.js";
import type { RuntimeContext } from "../common/runtime-context.js";
import type { Lineage } from "../common/runtime-core.js";
import type { NewRuntimeTurnRecord, TurnWaiter } from "../session/session-state.js";
import { DEFAULT_BUDGET, TurnBudget } from "../../loop/budget.js";
import { AuditTrail } from "./audit-trail.js";
import { ModelCallLog } from "./model-call-log.js";
import { planSummaryOf } from "../../modes/plan-summary.js";
import { questionOf } from "../approvals/question-answer.js";
import {
  argsOf,
  artifactIdOf,
  ASK_USER,
  CREATE_ARTIFACT,
  modeMessageType,
  offersModeTool,
  REQUEST_BUILD_MODE,
} from "../roles/mode-tools.js";
import { approvalDecisionRecord } from "../approvals/approval-decision.js";
import { surfacedRequests } from "../approvals/pending-listing.js";
import { confirmLease, DEFAULT_LEASE_TTL_MS } from "../session/session-lease.js";
import { LeaseLostError } from "../../errors/errors.js";
import { turnLabels } from "./event-labels.js";
import { toWellFormed } from "../../internal/lone-surrogate.js";

/** Everything one turn needs. */
export interface TurnSetup {
  agent: AgentDefinition;
  session: SessionSummary;
  created: boolean;
  prepared: PreparedAgent;
  /** The root history before this turn's input; the turn takes it over (the input is appended to it). */
  history: Message[];
  /** `estimateMessageTokens` summed over `history` (the session state keeps it). */
  historyTokens: number;
  /** The new message this turn answers; absent when continuing a suspended turn. */
  input: Message | undefined;
  resume?: ResumeState;
  resumeOf?: string;
  signal?: AbortSignal;
  /** Agents waiting on this turn through `agents_message` (handed to tools in `ctx.host`). */
  chain: readonly string[];
  /** Pre-assigned run id. @default a new UUID */
  runId?: string;
  /** Stored on the turn start so a resumed turn runs in the same context. */
  chatContext: ChatContext;
  /** Root structured output; its JSON Schema form goes on the turn start. */
  outputSchema?: AnyZodSchema | JsonSchema;
  /** Extra records to store first, in the same append as the turn start (e.g. crash repairs). */
  preface?: NewRecord[];
  /** Events produced before the loop starts (e.g. superseded approvals). */
  prefaceEvents?: LoopEvent[];
  onEvent: (event: RuntimeEvent) => void;
  /** The session lease's fencing token: every append of the turn carries it. */
  leaseToken?: number;
  /** Aborted when the session lease is lost: the turn stops. */
  leaseLost?: AbortSignal;
  /** Limits shared with the root turn (and hops from it). */
  lineage: Lineage;
  /** The session's role for this turn (null: none). */
  role?: string | null;
  /** Why the turn was stopped, when its signal says so (stored on its end record). */
  stopReason?: () => string | undefined;
  /** The host's context of the turn (stored on its start; tools see it as `ctx.context`). */
  context?: JsonValue;
  /** The sync `agents_message` call waiting on this turn (a new chain's start stores it). */
  waiter?: TurnWaiter;
  /**
   * The budget of the turn waiting on this one (a sync `agents_message`): this turn's budget checks and
   * counts in it too, so the waiting turn's limits cover it.
   */
  parentBudget?: TurnBudget;
  /**
   * The run id of the chain's first turn, when this one resumes it (tools' `ctx.callKey` stay the same across a
   * resume).
   */
  chainRunId?: string;
  /** The turn's number in the session (stored on its start; its events' `turn` label). @default 1 */
  turn?: number;
}

/** Characters of an artifact's content in `artifact_created.preview`. */
const PREVIEW_CHARS = 280;

const SNIPPET_CHARS = 200;

/** What the parts of one running turn share. */
interface TurnScope {
  runtime: RuntimeContext;
  setup: TurnSetup;
  sessionId: string;
  runId: string;
  /** A new counter value of the turn (record ids are made from it). */
  next: () => number;
  /** Stamps an event of the turn and emits it to the turn's consumer and `runtime.events`. */
  publish: (event: LoopEvent) => void;
  /** Appends records to the session, fenced by the turn's lease. */
  append: (records: NewRecord[]) => Promise<HistoryRecord[]>;
  audit: AuditTrail;
  /** Whether the runtime's `ask_user` tool is offered (its approval requests are questions). */
  asks: boolean;
  /** The requests each waiting call (by its request id) stands for, as the turn reported them. */
  surfaced: Map<string, { request: ApprovalRequest; question: boolean }[]>;
  /** The turn's model calls, stored with their messages. */
  models: ModelCallLog;
}

/**
 * Runs one turn of the loop and persists it as it goes: the turn start, every `message` event
 * (root and sub-task frames) before the loop moves past it, approval requests before the handler
 * is asked, approval decisions, every ended tool call's result with its audit record, then the
 * turn end and the session's snippet. Events reach the turn's consumer and `runtime.events`.
 */
export async function runTurn(runtime: RuntimeContext, setup: TurnSetup): Promise<TurnResult> {
  const scope = turnScope(runtime, setup);
  const { sessionId, runId, audit, publish } = scope;
  const { agent, prepared, lineage } = setup;
  await openTurn(scope);
  const effects = modeEffects(scope);

  // setup.history is this turn's own array (a fresh copy of the session's state): extend it in place.
  const history = setup.history;
  let historyTokens = setup.historyTokens;
  if (setup.input) {
    history.push(setup.input);
    historyTokens += estimateMessageTokens(setup.input);
  }
  const fence = leaseFence(runtime, setup, sessionId);
  const signals = [setup.signal, setup.leaseLost, fence?.lost].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const budget = new TurnBudget(
    deadlineBudget(lineageBudget(prepared.budget, lineage, setup.chain), setup.session),
    Date.now(),
    setup.parentBudget,
  );
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
      ...(runtime.options.hooks && { hooks: runtime.options.hooks }),
      ...(setup.context !== undefined && { context: setup.context }),
      ...(setup.session.scope !== undefined && { scope: setup.session.scope }),
      runId,
      sessionId,
      agentId: agent.agentId,
      ...(signal && { signal }),
      ...(setup.resume && { resume: setup.resume }),
      ...(setup.outputSchema !== undefined && { outputSchema: setup.outputSchema }),
      ...(runtime.options.pricing && { pricing: runtime.options.pricing }),
      ...(runtime.options.toolTimeoutMs !== undefined && { toolTimeoutMs: runtime.options.toolTimeoutMs }),
    },
    // `role` reaches the provider as `request.caller.role` (agent, session and run come from the options above).
    {
      historyTokens,
      runtimeHost: host,
      callKeyPrefix: `${sessionId}:${setup.chainRunId ?? runId}`,
      ...(fence && { beforeToolCall: fence.check, leaseToken: fence.token }),
      ...(setup.role && { role: setup.role }),
      onModelCall: scope.models.observe,
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
    // A store failure leaves the loop mid-turn: stop it (aborts tools and the provider call).
    if (!result) await loop.return(undefined as never);
  }
  if (!result) throw new Error("The loop ended without a done event");
  return closeTurn(scope, result);
}

/** The turn's lease check before every tool call: see {@link leaseFence}. */
interface LeaseFence {
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
function leaseFence(runtime: RuntimeContext, setup: TurnSetup, sessionId: string): LeaseFence | undefined {
  const token = setup.leaseToken;
  if (token === undefined) return undefined;
  const controller = new AbortController();
  const ttlMs = runtime.options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  return {
    token,
    lost: controller.signal,
    check: async () => {
      if (controller.signal.aborted || !(await confirmLease(runtime.store, sessionId, token, ttlMs))) {
        controller.abort(new LeaseLostError(sessionId, token));
      }
    },
  };
}

function turnScope(runtime: RuntimeContext, setup: TurnSetup): TurnScope {
  const { agent, session, prepared } = setup;
  const sessionId = session.sessionId;
  const runId = setup.runId ?? globalThis.crypto.randomUUID();
  let counter = 0;
  const label = turnLabels(setup);
  // Stamps the event in place: the loop makes a fresh object for every event and hands it over
  // once (a spread here cost more than the rest of the event's trip). Events the runtime keeps
  // (the prepared agent's warnings, repairs) are copied before they come here.
  const publish = (event: LoopEvent) => {
    const full = event as RuntimeEvent;
    full.sessionId = sessionId;
    full.agentId = agent.agentId;
    full.runId = runId;
    full.seq = runtime.nextSeq();
    full.ts = Date.now();
    label(full);
    setup.onEvent(full);
    runtime.emit(full);
  };
  const hostTools = runtime.options.tools;
  const audit = new AuditTrail({
    session,
    agentId: agent.agentId,
    runId,
    tools: prepared.tools,
    hostTools: () => (typeof hostTools === "function" ? hostTools() : (hostTools ?? [])),
    policy: prepared.policy,
    history: setup.history,
    resume: setup.resume,
    deliver: runtime.options.audit,
    warn: publish,
  });
  return {
    runtime,
    setup,
    sessionId,
    runId,
    next: () => counter++,
    publish,
    append: (records) => runtime.store.append(sessionId, records, { leaseToken: setup.leaseToken }),
    audit,
    asks: offersModeTool(prepared.tools, ASK_USER),
    surfaced: new Map(),
    models: new ModelCallLog(runId, runtime.storedPrompts.of(sessionId, session.createdAt), runtime.promptDigests),
  };
}

/**
 * Stores the turn start (after the repairs of `preface`, with the input) and publishes the events from before the loop.
 */
async function openTurn(scope: TurnScope): Promise<void> {
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
  // Calls whose approvals the repair retires (superseded, interrupted) are audited here.
  const retired = setup.preface ? await audit.retired(setup.preface) : [];
  const opening: NewRecord[] = [...(setup.preface ?? []), ...retired, start];
  if (setup.input) opening.push({ id: `${runId}:${scope.next()}`, frame: null, kind: "message", message: setup.input });
  await scope.append(opening);
  for (const record of retired) audit.deliver(record.entry);
  for (const event of setup.prepared.warnings) publish({ ...event });
  for (const event of setup.prefaceEvents ?? []) publish({ ...event });
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

/**
 * The loop's approval handler: questions wait for the user; the host's decisions are stored before the loop goes on.
 */
function approverOf(scope: TurnScope): ApprovalHandler {
  const { runtime, setup } = scope;
  const hostApprove = runtime.options.approve;
  return async (request, info) => {
    // A question waits for the user (answerQuestion), never for the host's approval handler.
    if (scope.asks && request.name === ASK_USER) return { suspend: true };
    const decision = hostApprove ? await hostApprove(request, info) : ({ suspend: true } as const);
    if (!("suspend" in decision) && request.name === "request_permission")
      runtime.onPermission("decided", request, setup.session, decision);
    if (!("suspend" in decision)) {
      await scope.append([approvalDecisionRecord(request, request.parentId, decision)]);
    }
    return decision;
  };
}

/** What the plan/act mode tools do beyond their results: artifacts stored, roles switched. */
interface ModeEffects {
  /** Arguments of `create_artifact` calls, by tool-call id, kept from their `start`. */
  artifactArgs: Map<string, unknown>;
  /** Stores the artifact of a `create_artifact` call that succeeded; emits `artifact_created` (and `plan_ready`). */
  storeArtifact(toolCallId: string, parentId: string | null, depth: number): Promise<void>;
  /** Records a role switch (used from the next turn) and emits `role_changed`. */
  switchRole(to: string, depth: number, parentId: string | null): Promise<void>;
}

function modeEffects(scope: TurnScope): ModeEffects {
  const { runtime, setup, sessionId, runId, publish } = scope;
  const { store } = runtime;
  const artifactArgs = new Map<string, unknown>();
  let role = setup.role ?? null;
  return {
    artifactArgs,
    async storeArtifact(toolCallId, parentId, depth) {
      const args = argsOf(artifactArgs.get(toolCallId)) as
        { filename?: unknown; kind?: unknown; content?: unknown } | undefined;
      if (typeof args?.filename !== "string" || typeof args.kind !== "string" || typeof args.content !== "string")
        return;
      const artifactId = artifactIdOf(toolCallId);
      const { filename, kind, content } = args;
      await scope.append([
        { id: artifactId, frame: parentId, kind: "artifact", artifactId, filename, artifactKind: kind, content, runId },
      ]);
      publish({
        type: "artifact_created",
        artifactId,
        filename,
        kind,
        preview: content.slice(0, PREVIEW_CHARS),
        depth,
        parentId,
      });
      if (kind !== "plan") return;
      // Parsed once per call: the calling message's type and the tool's check read the same result.
      const parsed = runtime.plans.read(content);
      runtime.plans.forget(content);
      if (!parsed.ok) return;
      const taskId = await runtime.onPlanReady(setup.session, artifactId);
      const summary = planSummaryOf(parsed.plan);
      publish({
        type: "plan_ready",
        artifactId,
        plan: parsed.plan,
        summary,
        ...(taskId !== undefined && { taskId }),
        depth,
        parentId,
      });
    },
    async switchRole(to, depth, parentId) {
      if (role === to) return;
      await scope.append([{ id: `${runId}:role:${scope.next()}`, frame: null, kind: "role", role: to, from: role }]);
      // Kept in the attributes too, so the role outlives a reset of the log.
      const current = await store.getSession(sessionId);
      await store.updateSession(sessionId, { attributes: { ...current?.attributes, role: to } });
      publish({ type: "role_changed", sessionId, from: role, to, depth, parentId });
      role = to;
    },
  };
}

/**
 * Stores what `event` asks to be stored (messages, approval requests, tool results with their
 * audit records) and runs the mode tools' effects. Returns whether the caller still publishes the
 * event (`false` when it was published here, before its effects, or replaced by a question).
 */
async function persistEvent(scope: TurnScope, effects: ModeEffects, event: LoopEvent): Promise<boolean> {
  const { runtime, setup, runId, publish, audit } = scope;
  const tools = setup.prepared.tools;
  if (event.type === "message") {
    // Decided before the message is stored: the call it carries has not run yet.
    if (event.message.role === "assistant") {
      const type = modeMessageType(event.message, tools, runtime.plans);
      if (type !== undefined) event.message.messageType = type;
    }
    const id = `${runId}:${scope.next()}`;
    // The model call that produced an assistant message is stored with it (what the model saw, usage, duration).
    const calls = event.message.role === "assistant" ? scope.models.recordsFor(event.message, id) : [];
    await scope
      .append([{ id, frame: event.parentId, kind: "message", message: event.message }, ...calls])
      .catch((error: unknown) => {
        scope.models.forget(calls);
        throw error;
      });
  } else if (event.type === "approval_request") {
    const asking = scope.asks && event.request.name === ASK_USER;
    await scope.append([
      {
        id: event.request.requestId,
        frame: event.parentId,
        kind: "approval",
        request: event.request,
        runId,
        ...(asking && { question: true as const }),
      },
    ]);
    if (event.request.name === "request_permission") runtime.onPermission("requested", event.request, setup.session);
    if (event.request.waitsOn !== undefined) {
      // A call waiting on another agent: the conversation shows what that agent waits on instead.
      const surfaced = await surfacedRequests(runtime, [event.request], {
        sessionId: setup.session.sessionId,
        agentId: setup.agent.agentId,
      });
      scope.surfaced.set(event.request.requestId, surfaced);
      for (const { request, question } of surfaced) {
        const origin = { depth: event.depth, parentId: event.parentId };
        if (question)
          publish({
            type: "question",
            questionId: request.requestId,
            toolCallId: request.toolCallId,
            question: questionOf(request),
            ...origin,
          });
        else publish({ type: "approval_request", request, ...origin });
      }
      return false;
    }
    if (asking) {
      // Shown as a question, not as an approval card.
      const { requestId, toolCallId } = event.request;
      publish({
        type: "question",
        questionId: requestId,
        toolCallId,
        question: questionOf(event.request),
        depth: event.depth,
        parentId: event.parentId,
      });
      return false;
    }
  } else if (event.type === "tool_call_update" && event.status === "start") {
    if (event.name === CREATE_ARTIFACT) effects.artifactArgs.set(event.toolCallId, event.args);
  } else if (event.type === "tool_call_update" && event.status === "end") {
    // Stored as each call finishes: after a crash a finished call is reused, never run again.
    const part: ToolResultPart = {
      type: "tool_result",
      toolCallId: event.toolCallId,
      name: event.name,
      result: event.result,
    };
    if (event.isError) part.isError = true;
    // Its audit entry goes in the same append: a stored result always has its entry.
    const audited = await audit.end(event);
    await scope.append([
      {
        id: `${runId}:result:${event.toolCallId}`,
        frame: event.parentId,
        kind: "tool_result",
        runId,
        toolCallId: event.toolCallId,
        result: part,
      },
      audited,
    ]);
    audit.deliver(audited.entry);
    if (!event.isError && event.name === CREATE_ARTIFACT && offersModeTool(tools, CREATE_ARTIFACT)) {
      publish(event);
      await effects.storeArtifact(event.toolCallId, event.parentId, event.depth);
      return false;
    }
    if (!event.isError && event.name === REQUEST_BUILD_MODE && offersModeTool(tools, REQUEST_BUILD_MODE)) {
      publish(event);
      await effects.switchRole("actor", event.depth, event.parentId);
      return false;
    }
  } else if (event.type === "llm_call_start") {
    setup.lineage.counters.llmCalls++;
  }
  return true;
}

/** Stores the turn end and the session's snippet, waits for the audit deliveries, publishes `done`. */
async function closeTurn(scope: TurnScope, result: LoopResult): Promise<TurnResult> {
  const { runtime, setup, sessionId, runId } = scope;
  const { store } = runtime;
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
      if (request.waitsOn === undefined) runtime.approvalSessions.set(request.requestId, sessionId);
  } else if (result.status !== "complete" && result.executionTree.nodes.length > 0) {
    // A turn stopped early (budget, iteration limit, error, abort) still keeps its
    // execution tree; a complete turn has it on its final assistant message.
    end.executionTree = result.executionTree;
  }
  if (result.error) end.error = result.error;
  const stopReason = result.status === "aborted" ? setup.stopReason?.() : undefined;
  if (stopReason !== undefined) end.reason = stopReason;
  await scope.append([...scope.models.unsentRecords(), end]);
  const snippet = result.text.trim();
  if (snippet !== "") {
    await store.updateSession(sessionId, {
      // Stores refuse a lone surrogate in a session's fields: the model's text may hold one, and the cut may make one.
      lastSnippet: toWellFormed(snippet.length > SNIPPET_CHARS ? snippet.slice(0, SNIPPET_CHARS - 1) + "…" : snippet),
    });
  }
  // The turn ends once the `audit` option has every entry (failures are reported before `done`).
  await scope.audit.settled();
  const turnResult: TurnResult = { ...result, sessionId, agentId: setup.agent.agentId, created: setup.created, runId };
  // The host decides what waiting calls wait on: those are the requests it is shown.
  if (result.pendingApprovals?.some((request) => request.waitsOn !== undefined)) {
    turnResult.pendingApprovals = result.pendingApprovals.flatMap((request) =>
      request.waitsOn === undefined ? [request] : (scope.surfaced.get(request.requestId) ?? []).map((s) => s.request),
    );
  }
  scope.publish({ type: "done", result: turnResult, depth: 0, parentId: null });
  return turnResult;
}

import EventEmitter from "eventemitter3";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import { AgentNotFoundError, ApprovalAlreadyResolvedError, ApprovalNotFoundError, InvalidArgumentError, SessionNotFoundError } from "../errors/errors.js";
import type { Message } from "../contracts/message.js";
import type { ChatContext } from "../contracts/tool-policy.js";
import { resolveSession } from "../sessions/resolve-session.js";
import type { SessionSummary } from "../contracts/session-store.js";
import type { AgentRuntime, PendingApproval, RuntimeEvent, RuntimeEvents, SendInput, TurnResult } from "../contracts/agent-runtime.js";
import { systemMessage } from "../messages/system-message.js";
import { prepareAgent, resolveModel, type PreparedAgent } from "./prepare-agent.js";
import { emergencyReset, repairSession } from "./repair-session.js";
import { runTurn } from "./run-turn.js";
import { appendRecords, storeCall, type AgentRuntimeOptions, type RuntimeContext } from "./runtime-context.js";
import { SessionInbox } from "./session-inbox.js";
import { readFresh, SessionStateCache } from "./session-state-cache.js";
import { eventStream } from "./event-stream.js";
import { readAuditLog } from "./read-audit-log.js";
import { createAgentTools } from "./agent-tools.js";
import { createRoleLookup } from "../modes/role-lookup.js";
import { notifyPermission, type PermissionPhase } from "./permission-notices.js";
import { isBackground, type Lineage, type RuntimeCore, type TurnRequest } from "./runtime-core.js";
import { acquireSessionLease, type HeldLease } from "./session-lease.js";
import type { SessionState } from "./session-state.js";
import type { LoopEvent } from "../contracts/loop-event.js";
import { DEFAULT_BUDGET } from "../loop/budget.js";
import { isApprovalIndexStore } from "../sessions/session-store.js";
import { createModeTools } from "./mode-tools.js";
import { answerResult, questionOf } from "./question-answer.js";
import { extraRecord } from "./session-state.js";
import { moveSubagent, settleSubagentTurn } from "./subagent-lifecycle.js";
import { createTaskApi, executionOutcome, taskOf, transitionTask } from "./task-api.js";

/** Marks a listed pending request that is a question (a symbol key: never in JSON). */
const QUESTION: unique symbol = Symbol("question");
/** Sessions whose state a runtime keeps between turns, unless `sessionCacheSize` says otherwise. */
const DEFAULT_SESSION_CACHE_SIZE = 256;
const DEFAULT_LEASE_TTL_MS = 30_000;
const DEFAULT_LEASE_WAIT_MS = 600_000;
const DEFAULT_MAX_BACKGROUND_AGENTS = 8;
const DEFAULT_MAX_AGENT_HOPS = 8;
/** Sessions looked at (newest first) for the default target of a notice or message. */
const FOREGROUND_CANDIDATES = 64;

/**
 * The host-facing runtime: resolves agent and session, composes the toolbelt, builds the prompt,
 * runs the loop, and persists every step in the session store. Messages to one session are
 * processed one at a time in arrival order; different sessions run concurrently.
 *
 * @example
 * const runtime = createAgentRuntime({ registry, store: new MemorySessionStore(), providers: { openai: openai() }, defaultModel: "gpt-4.1-mini" });
 * const result = await runtime.send({ agentId: "todo", content: "Add milk" });
 */
export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  const problems: string[] = [];
  if (!options?.registry || typeof options.registry.get !== "function") problems.push("registry is required");
  if (!options?.store || typeof options.store.append !== "function") problems.push("store is required");
  if (!options?.providers || typeof options.providers !== "object") problems.push("providers is required");
  const cacheSize = options?.sessionCacheSize;
  if (cacheSize !== undefined && !(Number.isInteger(cacheSize) && cacheSize >= 0)) problems.push("sessionCacheSize must be a whole number, 0 or more");
  for (const key of ["leaseTtlMs", "leaseWaitMs", "maxBackgroundAgents", "maxAgentHops"] as const) {
    const value = options?.[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0 && (key === "maxBackgroundAgents" || key === "maxAgentHops" || value > 0))) {
      problems.push(`${key} must be a whole number${key.startsWith("lease") ? " above 0" : ", 0 or more"}`);
    }
  }
  if (problems.length > 0) throw new InvalidArgumentError(`createAgentRuntime: ${problems.join("; ")}`);

  const { registry, store } = options;
  let seq = 0;
  let closed = false;
  const notified = new Set<string>();
  // Session resolution runs one request at a time, in call order, so messages reach a session's
  // inbox in the order they were sent (and two "latest-or-create" calls never create two sessions).
  let admissionTail: Promise<unknown> = Promise.resolve();
  const admit = <T>(step: () => Promise<T>): Promise<T> => {
    const result = admissionTail.then(step);
    admissionTail = result.catch(() => undefined);
    return result;
  };
  const states = new SessionStateCache(store, options.sessionCacheSize ?? DEFAULT_SESSION_CACHE_SIZE);
  const roleOf = createRoleLookup(options.roles, registry);
  const context: RuntimeContext = { options, roleOf, store, events: new EventEmitter<RuntimeEvents>(), inbox: new SessionInbox(), nextSeq: () => ++seq, approvalSessions: new Map() };
  const leaseOptions = { owner: globalThis.crypto.randomUUID(), ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS, waitMs: options.leaseWaitMs ?? DEFAULT_LEASE_WAIT_MS };

  /**
   * Runs `task` as the session's next piece of work: after the session's earlier work in this
   * process (inbox) and, with a store that has leases, while holding its lease, so no other
   * runtime works on it meanwhile.
   */
  const withSession = <T>(sessionId: string, task: (lease: HeldLease) => Promise<T>): Promise<T> =>
    context.inbox.run(sessionId, async () => {
      const lease = await acquireSessionLease(store, sessionId, leaseOptions);
      try {
        return await task(lease);
      } finally {
        await lease.release();
      }
    });

  const agentOf = (agentId: string): AgentDefinition => {
    const agent = registry.get(agentId);
    if (!agent) throw new AgentNotFoundError(agentId);
    return agent;
  };
  const checkOpen = () => {
    if (closed) throw new InvalidArgumentError("The runtime is closed");
  };
  const newLineage = (agent: AgentDefinition): Lineage => ({
    counters: { backgroundAgents: 0, llmCalls: 0, maxLlmCalls: agent.budget?.maxTotalLlmCalls ?? options.budget?.maxTotalLlmCalls ?? DEFAULT_BUDGET.maxTotalLlmCalls },
    hops: 0,
  });

  /** The session's role: its last `role` record, else the one kept in its attributes (past a reset), else its agent's. */
  const roleFor = (agent: AgentDefinition, session: SessionSummary, state: SessionState): string | null => {
    const kept = session.attributes?.role;
    const name = state.role ?? (typeof kept === "string" ? kept : undefined) ?? agent.role;
    return name !== undefined && roleOf(name) ? name : null;
  };
  /** Turns running in this process, by session: `setRole` stops them. */
  const running = new Map<string, { controller: AbortController; reason: string | undefined }>();
  const runningTurn = (sessionId: string, signal: AbortSignal | undefined) => {
    const entry = { controller: new AbortController(), reason: undefined as string | undefined };
    running.set(sessionId, entry);
    return {
      signal: signal ? AbortSignal.any([signal, entry.controller.signal]) : entry.controller.signal,
      reason: () => entry.reason,
      done: () => {
        if (running.get(sessionId) === entry) running.delete(sessionId);
      },
    };
  };
  /** Publishes an event of no turn (a role switch between turns). */
  const publishOutside = (session: SessionSummary, event: LoopEvent) => {
    const full: RuntimeEvent = { ...event, sessionId: session.sessionId, agentId: session.agentId, runId: "", seq: context.nextSeq(), ts: Date.now() };
    try {
      context.events.emit("event", full);
    } catch {
      // A host listener that throws must not break the caller.
    }
  };

  /** Queues a turn on its session; the session's state is read and repaired when its turn comes. */
  function enqueueTurn(request: TurnRequest): Promise<TurnResult> {
    const { agent, session, chatContext } = request;
    const lineage = request.lineage ?? newLineage(agent);
    const turn = withSession(session.sessionId, async (lease) => {
      // A suspended turn whose approvals were all decided (by a process that died before it
      // resumed the turn) runs first: the decision is never lost.
      const state = await recoverDecided(session, lease, lineage);
      const role = roleFor(agent, session, state);
      const prepared = prepare(agent, session, chatContext, role);
      if (isBackground(session)) await moveSubagent(store, publishOutside, session.sessionId, "running");
      const stop = runningTurn(session.sessionId, request.signal);
      const repair = emergencyReset(repairSession(state), request.input, prepared.systemPrompt, options.emergencyContextLimit);
      return runTurn(context, {
        agent,
        session,
        created: request.created,
        prepared,
        history: repair.history,
        historyTokens: repair.historyTokens,
        input: request.input,
        preface: repair.records,
        prefaceEvents: repair.events,
        chatContext,
        ...(request.outputSchema !== undefined && { outputSchema: request.outputSchema }),
        chain: request.chain,
        lineage,
        leaseToken: lease.token,
        leaseLost: lease.lost,
        role,
        ...(request.runId !== undefined && { runId: request.runId }),
        signal: stop.signal,
        stopReason: stop.reason,
        onEvent: request.onEvent ?? (() => undefined),
      })
        .finally(stop.done)
        .then((result) => settleAfterTurn(session, result));
    });
    if (isBackground(session)) {
      turn.then(
        (result) => {
          if (result.status !== "complete" && result.status !== "suspended") {
            const detail = result.error ? `: ${result.error.message}` : "";
            notifyParentOfEnd(session, lineage, result.status === "error" ? `failed${detail}` : `ended with status "${result.status}"${detail}`);
          }
        },
        (error: unknown) => notifyParentOfEnd(session, lineage, `failed: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
    return turn;
  }

  /** The session's state, after resuming a suspended turn whose approvals are all decided but that never resumed. */
  async function recoverDecided(session: SessionSummary, lease: HeldLease, lineage: Lineage): Promise<SessionState> {
    const state = await states.read(session);
    if (!state.suspended || state.pending.length > 0 || state.decisions.size === 0) return state;
    await resumeSuspended(session, state, lease, lineage, {});
    return states.read(session);
  }

  /** Resumes the suspended turn of `state` with its stored decisions (and `extra` ones). */
  function resumeSuspended(
    session: SessionSummary,
    state: SessionState,
    lease: HeldLease,
    lineage: Lineage,
    extra: Record<string, { approved: boolean; reason?: string; requestId?: string; result?: unknown }>,
  ): Promise<TurnResult> {
    const agent = agentOf(session.agentId);
    const suspended = state.suspended!;
    const decisions: Record<string, { approved: boolean; reason?: string; requestId?: string; result?: unknown }> = {};
    for (const [toolCallId, record] of state.decisions) {
      decisions[toolCallId] = {
        approved: record.decision === "approved",
        requestId: record.request.requestId,
        ...(record.reason !== undefined && { reason: record.reason }),
        ...(record.answer !== undefined && { result: record.answer }),
      };
    }
    Object.assign(decisions, extra);
    const chatContext = state.chatContexts.get(suspended.runId) ?? { kind: "thread" };
    const role = roleFor(agent, session, state);
    const stop = runningTurn(session.sessionId, undefined);
    return runTurn(context, {
      agent,
      session,
      created: false,
      role,
      signal: stop.signal,
      stopReason: stop.reason,
      prepared: prepare(agent, session, chatContext, role),
      history: state.history,
      historyTokens: state.historyTokens,
      input: undefined,
      // Results stored per call are reused: a finished call never runs again.
      resume: { frames: state.frames, decisions, results: { ...state.toolResults, ...suspended.results } },
      resumeOf: suspended.runId,
      chain: [],
      chatContext,
      ...(state.outputSchema !== undefined && { outputSchema: state.outputSchema }),
      lineage,
      leaseToken: lease.token,
      leaseLost: lease.lost,
      onEvent: () => undefined,
    })
      .finally(stop.done)
      .then((result) => settleAfterTurn(session, result));
  }

  /**
   * After a turn that did not suspend, before its result is returned: a background agent waits
   * for its parent to merge; an executing task becomes `completed` or `failed`. (Only sessions
   * made as such, so other turns cost no extra store reads.)
   */
  async function settleAfterTurn(session: SessionSummary, result: TurnResult): Promise<TurnResult> {
    if (result.status === "suspended") return result;
    if (isBackground(session)) await settleSubagentTurn(store, publishOutside, result);
    const outcome = executionOutcome(result);
    if (outcome === undefined || typeof session.attributes?.taskId !== "string") return result;
    const current = await storeCall("getSession", () => store.getSession(result.sessionId));
    if (current && taskOf(current)?.status === "executing") {
      // Lost to a concurrent transition (a cancel): that one stands.
      await transitionTask({ store, publish: publishOutside }, current, outcome).catch(() => undefined);
    }
    return result;
  }

  /** Tells a background agent's parent, once, that its run did not complete. */
  function notifyParentOfEnd(session: SessionSummary, lineage: Lineage, why: string): void {
    if (notified.has(session.sessionId)) return;
    notified.add(session.sessionId);
    void (async () => {
      const current = await store.getSession(session.sessionId);
      if (!current || current.attributes?.failureNotified) return;
      await store.updateSession(session.sessionId, { attributes: { ...current.attributes, failureNotified: true } });
      const parentId = current.attributes?.parentSessionId;
      const parent = typeof parentId === "string" ? await store.getSession(parentId) : undefined;
      const parentAgent = parent && registry.get(parent.agentId);
      // Never across scopes, whatever the attributes say.
      if (!parent || !parentAgent || parent.scope !== current.scope) return;
      const text = `Background agent "${current.agentId}" (session ${current.sessionId}) ${why}`;
      await enqueueTurn({
        agent: parentAgent,
        session: parent,
        created: false,
        input: systemMessage(current.agentId, text),
        chatContext: { kind: "thread" },
        chain: [],
        lineage: { counters: lineage.counters, hops: lineage.hops + 1 },
      });
    })().catch(() => undefined);
  }

  const core: RuntimeCore = {
    registry,
    store,
    runTurn: enqueueTurn,
    record: (session, message) =>
      withSession(session.sessionId, async (lease) => {
        await appendRecords(store, session.sessionId, [{ id: globalThis.crypto.randomUUID(), frame: null, kind: "message", message }], lease.token);
      }),
    async foregroundSession(scope, except, accept) {
      const sessions = await storeCall("listSessions", () => store.listSessions({ scope: scope ?? null, limit: FOREGROUND_CANDIDATES }));
      return sessions.find((s) => {
        if (isBackground(s) || s.sessionId === except) return false;
        const agent = registry.get(s.agentId);
        return agent !== undefined && accept(agent);
      });
    },
    maxDelegationDepth: options.maxDelegationDepth ?? 3,
    maxBackgroundAgents: options.maxBackgroundAgents ?? DEFAULT_MAX_BACKGROUND_AGENTS,
    maxAgentHops: options.maxAgentHops ?? DEFAULT_MAX_AGENT_HOPS,
    admit,
    publish: (session, event) => publishOutside(session, event),
  };
  const agentTools = [...createAgentTools(core), ...createModeTools()];
  // What a turn needs from its agent is the same for the same agent and chat context unless the
  // policy or a prompt section depends on the session: then it is made per turn.
  const perSession = typeof options.policy === "function" || (options.promptSections ?? []).some((section) => typeof section === "function");
  let prepared = new WeakMap<AgentDefinition, Map<string, PreparedAgent>>();
  let toolsSeen: unknown;
  const prepare = (agent: AgentDefinition, session: SessionSummary, chatContext: ChatContext, role: string | null): PreparedAgent => {
    if (perSession) return prepareAgent({ options, roleOf, agent, session, chatContext, builtinTools: agentTools, role });
    // Tools given as a function (MCP servers' lists change): a new array drops the prepared toolbelts.
    const tools = typeof options.tools === "function" ? options.tools() : options.tools;
    if (tools !== toolsSeen) {
      toolsSeen = tools;
      prepared = new WeakMap();
    }
    const key = JSON.stringify([chatContext, role]);
    let byContext = prepared.get(agent);
    if (!byContext) prepared.set(agent, (byContext = new Map()));
    let entry = byContext.get(key);
    if (!entry) byContext.set(key, (entry = prepareAgent({ options, roleOf, agent, session, chatContext, builtinTools: agentTools, role })));
    return entry;
  };
  context.onPlanReady = async (session, artifactId) => {
    const current = await storeCall("getSession", () => store.getSession(session.sessionId));
    const task = current && taskOf(current);
    if (!current || task?.status !== "planning") return undefined;
    await transitionTask({ store, publish: publishOutside }, current, "awaiting_review", { planArtifactId: artifactId });
    return task.taskId;
  };
  context.onPermission = (phase: PermissionPhase, request, session, decision) => notifyPermission(core, phase, request, session, decision);

  async function startTurn(input: SendInput, onEvent: (event: RuntimeEvent) => void): Promise<TurnResult> {
    checkOpen();
    const agent = agentOf(input.agentId);
    const content = input.content;
    if (typeof content === "string" ? content.length === 0 : !Array.isArray(content) || content.length === 0) {
      throw new InvalidArgumentError("send: content must be a non-empty string or a non-empty array of parts");
    }
    checkScope("send", input.scope);
    const chatContext = input.chatContext ?? { kind: "thread" };
    const outputSchema = input.outputSchema as unknown;
    if (outputSchema !== undefined && (outputSchema === null || typeof outputSchema !== "object" || Array.isArray(outputSchema))) {
      throw new InvalidArgumentError("send: outputSchema must be a zod schema or a JSON Schema object");
    }
    // Fail on a misconfigured agent before a session is created.
    resolveModel(options, agent);
    const admitted = await admit(async () => {
      const scope = input.scope === undefined ? {} : { scope: input.scope };
      const { session, created } = await storeCall("resolveSession", () => resolveSession(store, agent.agentId, input.session, scope));
      // Wrapped so the admission step does not wait for the turn itself.
      return { turn: enqueueTurn({ agent, session, created, input: { role: "user", content }, chatContext, chain: [], ...(input.signal && { signal: input.signal }), ...(input.outputSchema !== undefined && { outputSchema: input.outputSchema }), onEvent }) };
    });
    return admitted.turn;
  }

  /** The session of an approval request: known to this process, else from the store's index, else found by scanning. */
  async function findApproval(requestId: string): Promise<SessionSummary> {
    if (typeof requestId !== "string" || requestId === "") throw new InvalidArgumentError("resolveApproval: requestId must be a non-empty string");
    const known = context.approvalSessions.get(requestId);
    const session = known === undefined ? undefined : await storeCall("getSession", () => store.getSession(known));
    if (session) return session;
    if (isApprovalIndexStore(store)) {
      const indexed = await storeCall("findApproval", () => store.findApproval(requestId));
      const found = indexed && (await storeCall("getSession", () => store.getSession(indexed.sessionId)));
      if (found) return found;
      throw new ApprovalNotFoundError(requestId);
    }
    for (const session of await storeCall("listSessions", () => store.listSessions())) {
      // A scan reads past the cache: it would push out the sessions that are in use.
      if ((await readFresh(store, session.sessionId)).approvals.has(requestId)) return session;
    }
    throw new ApprovalNotFoundError(requestId);
  }

  /** Every pending approval request (questions included), from the index or by reading sessions. */
  async function listPending(query: { sessionId?: string; scope?: string }): Promise<(PendingApproval & { [QUESTION]?: true })[]> {
    if (isApprovalIndexStore(store)) {
      const entries = await storeCall("listPendingApprovals", () =>
        store.listPendingApprovals({ ...(query.sessionId !== undefined && { sessionId: query.sessionId }), ...(query.scope !== undefined && { scope: query.scope }) }),
      );
      return entries.map((entry) => ({
        requestId: entry.requestId,
        sessionId: entry.sessionId,
        agentId: entry.agentId,
        runId: entry.request.runId ?? "",
        request: entry.request.request,
        at: entry.request.at,
        ...(entry.request.question === true && { [QUESTION]: true as const }),
      }));
    }
    const sessions =
      query.sessionId !== undefined
        ? [await storeCall("getSession", () => store.getSession(query.sessionId!))].filter((s): s is SessionSummary => s !== undefined && (query.scope === undefined || s.scope === query.scope))
        : await storeCall("listSessions", () => store.listSessions(query.scope === undefined ? {} : { scope: query.scope }));
    const pending: (PendingApproval & { [QUESTION]?: true })[] = [];
    for (const session of sessions) {
      const state = query.sessionId !== undefined ? await states.read(session) : await readFresh(store, session.sessionId);
      for (const record of state.pending) {
        pending.push({
          requestId: record.request.requestId,
          sessionId: session.sessionId,
          agentId: session.agentId,
          runId: record.runId ?? state.suspended!.runId,
          request: record.request,
          at: record.at,
          ...(record.question === true && { [QUESTION]: true as const }),
        });
      }
    }
    return pending;
  }

  /** Whether a listed pending request is a question of the runtime's own `ask_user` (its record says so). */
  const isQuestion = (pending: PendingApproval & { [QUESTION]?: true }): boolean => pending[QUESTION] === true;

  /**
   * Decides an approval request, or answers a question (`answer` given): compare-and-set on the
   * decision record, then, once the turn has no pending request left, resumes it.
   */
  async function decide(requestId: string, decision: { approved: boolean; reason?: string }, answer: unknown): Promise<TurnResult> {
    checkOpen();
    const asking = answer !== undefined;
    const operation = asking ? "answerQuestion" : "resolveApproval";
    if (typeof requestId !== "string" || requestId === "") throw new InvalidArgumentError(`${operation}: ${asking ? "questionId" : "requestId"} must be a non-empty string`);
    const session = await findApproval(requestId);
    const agent = agentOf(session.agentId);
    return withSession(session.sessionId, async (lease) => {
      const lineage = newLineage(agent);
      const state = await recoverDecided(session, lease, lineage);
      const entry = state.approvals.get(requestId);
      if (!entry) throw new ApprovalNotFoundError(requestId);
      const request = entry.request.request;
      // A question is answered, never approved; an approval is never answered.
      if ((entry.request.question === true) !== asking) throw new InvalidArgumentError(`${operation}: "${requestId}" is ${asking ? "an approval request: use resolveApproval" : "a question: use answerQuestion"}`);
      if (entry.decision || !state.suspended || !state.pending.includes(entry.request)) throw new ApprovalAlreadyResolvedError(requestId);
      const result = asking ? answerResult(questionOf(request), answer as Parameters<typeof answerResult>[1]) : undefined;
      // Compare-and-set: the decision's id is fixed, append is idempotent by id, so exactly one
      // decider's record is stored; whoever finds another decisionId there lost.
      const decisionId = globalThis.crypto.randomUUID();
      const [stored] = await appendRecords(
        store,
        session.sessionId,
        [
          {
            id: `${requestId}:decision`,
            frame: entry.request.frame,
            kind: "approval",
            request,
            decision: decision.approved ? "approved" : "denied",
            decisionId,
            ...(!decision.approved && decision.reason !== undefined && { reason: decision.reason }),
            ...(result !== undefined && { answer: result }),
          },
        ],
        lease.token,
      );
      if ((stored as { decisionId?: string } | undefined)?.decisionId !== decisionId) throw new ApprovalAlreadyResolvedError(requestId);
      const suspendedRun = state.suspended.runId;
      context.approvalSessions.delete(requestId);
      const remaining = state.pending.filter((p) => p !== entry.request);
      if (remaining.length > 0) return stillSuspended(session, agent, suspendedRun, remaining.map((p) => p.request));
      if (request.name === "request_permission") context.onPermission?.("decided", request, session, decision);
      const extra = {
        [request.toolCallId]: { approved: decision.approved, requestId, ...(decision.reason !== undefined && { reason: decision.reason }), ...(result !== undefined && { result }) },
      };
      return resumeSuspended(session, state, lease, lineage, extra);
    });
  }

  const runtime: AgentRuntime = {
    events: context.events,
    store,
    registry,
    // The result's `structured` is what the loop validated against the same schema.
    send: (input) => startTurn(input, () => undefined) as Promise<TurnResult<never>>,
    stream: (input) => eventStream((push) => startTurn(input, push)),
    async postSystemMessage(target, text, postOptions) {
      checkOpen();
      if (!postOptions?.origin) throw new InvalidArgumentError("postSystemMessage: origin is required");
      if (target.sessionId === undefined && target.agentId === undefined) throw new InvalidArgumentError("postSystemMessage: target needs a sessionId or an agentId");
      checkScope("postSystemMessage", target.scope);
      if (target.sessionId === undefined) agentOf(target.agentId!);
      const admitted = await admit(async () => {
        let session: SessionSummary;
        let created = false;
        if (target.sessionId !== undefined) {
          const found = await storeCall("getSession", () => store.getSession(target.sessionId!));
          // A session of another scope is as unknown as a missing one.
          if (!found || (target.scope !== undefined && found.scope !== target.scope)) {
            throw new SessionNotFoundError(`Unknown session "${target.sessionId}"`, { sessionId: target.sessionId });
          }
          session = found;
        } else {
          const scope = target.scope === undefined ? {} : { scope: target.scope };
          ({ session, created } = await storeCall("resolveSession", () => resolveSession(store, target.agentId!, "latest-or-create", scope)));
        }
        const agent = agentOf(session.agentId);
        const message = systemMessage(postOptions.origin, text, { silent: postOptions.silent === true });
        if (message.silent) return { done: core.record(session, message) };
        return { done: enqueueTurn({ agent, session, created, input: message, chatContext: { kind: "thread" }, chain: [] }) };
      });
      await admitted.done;
    },
    async pendingApprovals(query = {}) {
      checkScope("pendingApprovals", query.scope);
      return (await listPending(query)).filter((p) => !isQuestion(p));
    },
    resolveApproval: (requestId, decision) => decide(requestId, decision, undefined),
    answerQuestion: (questionId, answer) => decide(questionId, { approved: true }, answer),
    async pendingQuestions(query = {}) {
      checkScope("pendingQuestions", query.scope);
      return (await listPending(query)).filter(isQuestion).map((p) => ({ questionId: p.requestId, sessionId: p.sessionId, agentId: p.agentId, runId: p.runId, question: questionOf(p.request), at: p.at }));
    },
    async setRole(sessionId, role) {
      checkOpen();
      if (typeof role !== "string" || !roleOf(role)) throw new InvalidArgumentError(`setRole: unknown role "${String(role)}"`);
      const session = await storeCall("getSession", () => store.getSession(sessionId));
      if (!session) throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
      const agent = agentOf(session.agentId);
      // A turn of this session running here stops first; its end record says why.
      const current = running.get(sessionId);
      if (current) {
        current.reason = "role_changed";
        current.controller.abort(new Error("role_changed"));
      }
      await withSession(sessionId, async (lease) => {
        const state = await states.read(session);
        const fresh = (await storeCall("getSession", () => store.getSession(sessionId))) ?? session;
        const from = roleFor(agent, fresh, state);
        if (from === role) return;
        await appendRecords(store, sessionId, [extraRecord({ id: globalThis.crypto.randomUUID(), frame: null, kind: "role", role, from })], lease.token);
        // Kept in the attributes too, so the role outlives a reset of the log.
        await storeCall("updateSession", () => store.updateSession(sessionId, { attributes: { ...fresh.attributes, role } }));
        publishOutside(session, { type: "role_changed", sessionId, from, to: role, depth: 0, parentId: null });
      });
    },
    auditLog: (sessionId, query) => readAuditLog(store, sessionId, query),
    tasks: createTaskApi({
      store,
      checkAgent: (agentId) => void agentOf(agentId),
      setRole: (sessionId, role) => runtime.setRole(sessionId, role),
      send: (session, content) => {
        checkOpen();
        return enqueueTurn({ agent: agentOf(session.agentId), session, created: false, input: { role: "user", content }, chatContext: { kind: "thread" }, chain: [] });
      },
      stop: (sessionId, reason) => {
        const current = running.get(sessionId);
        if (!current) return;
        current.reason = reason;
        current.controller.abort(new Error(reason));
      },
      publish: (session, event) => publishOutside(session, event),
    }),
    async close() {
      closed = true;
      await context.inbox.drain();
    },
  };
  return runtime;
}

function checkScope(operation: string, scope: unknown): void {
  if (scope !== undefined && (typeof scope !== "string" || scope === "")) throw new InvalidArgumentError(`${operation}: scope must be a non-empty string when set`);
}

function stillSuspended(session: SessionSummary, agent: AgentDefinition, runId: string, pending: PendingApproval["request"][]): TurnResult {
  return {
    status: "suspended",
    text: "",
    messages: [] as Message[],
    executionTree: { version: 1, nodes: [] },
    usage: { inputTokens: 0, outputTokens: 0, llmCalls: 0, toolCalls: 0 },
    pendingApprovals: pending,
    sessionId: session.sessionId,
    agentId: agent.agentId,
    created: false,
    runId,
  };
}

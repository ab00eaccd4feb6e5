import { InvalidArgumentError } from "../errors/errors.js";
import type { JsonValue } from "../contracts/json-schema.js";
import type { AgentRuntime, PendingQuery, RuntimeEvent, TurnResult } from "../contracts/agent-runtime.js";
import { matchesScopeFilter, scopeFilterOf } from "../internal/scope-filter.js";
import type { TaskApi } from "../contracts/task.js";
import { createRoleLookup } from "../modes/role-lookup.js";
import { isSignalingSessionStore } from "../sessions/session-store.js";
import { hookProblems } from "../loop/turn-hooks.js";
import { MAX_DELEGATION_DEPTH } from "./records/delegation-limits.js";
import { leaseTtlOf, type AgentRuntimeOptions } from "./records/runtime-options.js";
import { runtimeLimits } from "./records/runtime-limits.js";
import { checkScopeQuery } from "./records/scope-checks.js";
import { AdmissionOrder } from "./session/admission-order.js";
import { GuardedSessionStore } from "./session/guarded-session-store.js";
import { isQuestion } from "./session/pending-listing.js";
import { RunningTurns } from "./session/running-turns.js";
import { RuntimeStatus } from "./session/runtime-status.js";
import { SessionGate } from "./session/session-gate.js";
import { SessionStateCache } from "./session/session-state-cache.js";
import { createEventPublisher } from "./events/event-publisher.js";
import { DEFAULT_MAX_STREAM_BACKLOG, eventStream } from "./events/event-stream.js";
import { agentOf } from "./agents/agent-lookups.js";
import { externalHandlerProblems } from "./agents/external-agent.js";
import { createModeTools, createPlanReader } from "./agents/mode-tools.js";
import { createAgentPreparer } from "./agents/prepared-agents.js";
import { questionOf } from "./agents/question-answer.js";
import { compactionProblems } from "./runner/compact-context.js";
import { compactSession } from "./runner/compact-session.js";
import { readAuditLog } from "./runner/read-audit-log.js";
import { createTurnRunner } from "./runner/run-turn.js";
import type { TurnRunnerHooks } from "./runner/turn-runner-deps.js";
import { admitSend, admitSystemMessage } from "./queue/admission.js";
import { TurnQueue } from "./queue/turn-queue.js";
import { stopTurn } from "./queue/stop-turn.js";
import { DelegatedWaits } from "./delegation/delegated-waits.js";
import { runDispatchedTurn } from "./delegation/dispatched-turn.js";
import { TurnDispatch } from "./delegation/turn-dispatch.js";
import { backgroundLifecycle } from "./background/background-lifecycle.js";
import { createBackgroundNotices } from "./background/background-notices.js";
import { createAgentTools } from "./agent-tools/agent-tools.js";
import { createTaskApi } from "./tasks/task-api.js";
import { taskLifecycle } from "./tasks/task-lifecycle.js";
import { setRole } from "./roles/set-role.js";
import { forkSession } from "./conversation/fork-session.js";
import { rewindSession } from "./conversation/rewind-session.js";
import { decide } from "./decisions/decide.js";
import { pendingToolCalls, submitToolResult } from "./decisions/client-results.js";
import { notifyPermission } from "./decisions/permission-notices.js";

// The runtime's entry: what the rest of src/ takes from the runtime comes through this file.
export { storedTurnResult } from "./session/stored-turn-result.js";
export type { AgentRuntimeOptions, PolicyTurn, RuntimeErrorInfo } from "./records/runtime-options.js";
export type {
  ExternalAgentHandler,
  ExternalAgentReply,
  ExternalAgentRequest,
} from "./records/external-agent-handler.js";
export type { RuntimeMessageRecord, RuntimeTurnRecord } from "./records/session-state.js";

/** Sessions whose state a runtime keeps between turns, unless `sessionCacheSize` says otherwise. */
const DEFAULT_SESSION_CACHE_SIZE = 256;
const DEFAULT_LEASE_WAIT_MS = 600_000;

/**
 * The host-facing runtime: resolves agent and session, composes the toolbelt, builds the prompt,
 * runs the loop, and persists every step in the session store. Messages to one session are
 * processed one at a time in arrival order; different sessions run concurrently.
 *
 * Built in one step, in dependency order (each service takes a read-only object of what it uses):
 * sessions → events → agents → turn runner → turn queue → features → decisions. A feature that a
 * lower layer calls (background agents and tasks on the turn lifecycle, delegated waits on
 * recovery, permission notices and plans on the runner) is built before that layer and handed to
 * it; what it needs of the layer itself comes as an argument of each call.
 *
 * @example
 * const runtime = createAgentRuntime({ registry, store: new MemorySessionStore(), providers: { openai: openai() },
 * defaultModel: "gpt-4.1-mini" });
 * const result = await runtime.send({ agentId: "todo", content: "Add milk" });
 */
export function createAgentRuntime<C = JsonValue>(typedOptions: AgentRuntimeOptions<C>): AgentRuntime<C> {
  // The context's type parameter only types what the host writes and reads; inside it is JSON.
  checkOptions(typedOptions as AgentRuntimeOptions);
  // Wrapped once, here: every store failure the runtime meets is a SessionStoreError.
  const store = new GuardedSessionStore(typedOptions.store);
  const options: AgentRuntimeOptions = { ...(typedOptions as AgentRuntimeOptions), store };
  // Live events go to other processes when the host's store carries signals between them.
  const services = createServices(options, store, isSignalingSessionStore(typedOptions.store));
  const {
    registry,
    events,
    status,
    states,
    gate,
    dispatch,
    queue,
    waits,
    admission,
    decisions,
    roles,
    steering,
    conversation,
    compaction,
  } = services;
  const maxBacklog = options.maxStreamBacklog ?? DEFAULT_MAX_STREAM_BACKLOG;
  const agentRuntime: AgentRuntime = {
    events: events.emitter,
    store: typedOptions.store,
    registry,
    // The result's `structured` is what the loop validated against the same schema.
    send: (input) => admitSend(admission, input, () => undefined) as Promise<TurnResult<never>>,
    stream: (input) =>
      eventStream((push) => admitSend(admission, input, push), { maxBacklog, overflow: streamOverflow(maxBacklog) }),
    postSystemMessage: (target, text, postOptions) => admitSystemMessage(admission, target, text, postOptions),
    async pendingApprovals(query = {}) {
      checkScopeQuery("pendingApprovals", query);
      const listed = (await waits.listPending(queue, query)).filter((p) => !isQuestion(p) && p.request.client !== true);
      lookAtQueue(services, query);
      return listed;
    },
    resolveApproval: (requestId, decision) => decide(decisions, requestId, decision, undefined),
    answerQuestion: async (questionId, answer) => {
      const { decisionId, scope, scopePrefix, ...rest } = answer ?? {};
      return decide(
        decisions,
        questionId,
        {
          approved: true,
          ...(decisionId !== undefined && { decisionId }),
          ...(scope !== undefined && { scope }),
          ...(scopePrefix !== undefined && { scopePrefix }),
        },
        { kind: "question", answer: answer === undefined || answer === null ? answer : rest },
      );
    },
    async pendingToolCalls(query = {}) {
      checkScopeQuery("pendingToolCalls", query);
      return pendingToolCalls({ store, states }, query);
    },
    submitToolResult: (toolCallId, result) => submitToolResult(decisions, { store, states }, toolCallId, result),
    async pendingQuestions(query = {}) {
      checkScopeQuery("pendingQuestions", query);
      lookAtQueue(services, query);
      return (await waits.listPending(queue, query)).filter(isQuestion).map((p) => ({
        questionId: p.requestId,
        toolCallId: p.request.toolCallId,
        sessionId: p.sessionId,
        agentId: p.agentId,
        runId: p.runId,
        question: questionOf(p.request),
        at: p.at,
        ...(p.chain !== undefined && { chain: p.chain }),
      }));
    },
    setRole: (sessionId, role) => setRole(roles, sessionId, role),
    stopTurn: (sessionId, stopOptions) => stopTurn(steering, sessionId, stopOptions),
    rewind: (sessionId, rewindOptions) => rewindSession(conversation, sessionId, rewindOptions),
    forkSession: (sessionId, forkOptions) => forkSession(conversation, sessionId, forkOptions),
    compact: (sessionId, compactOptions) => compactSession(compaction, sessionId, compactOptions),
    setTurnDispatcher(dispatcher) {
      if (dispatcher !== undefined && typeof dispatcher !== "function")
        throw new InvalidArgumentError("setTurnDispatcher: dispatch must be a function or undefined");
      dispatch.install(dispatcher);
    },
    runDispatchedTurn: (turn) => runDispatchedTurn({ status, registry, store, events, turns: queue }, turn),
    auditLog: (sessionId, query) => readAuditLog(store, sessionId, query),
    tasks: taskApiOf(services),
    async close() {
      status.close();
      queue.close(new InvalidArgumentError("The runtime closed while the message waited for a pending decision"));
      await gate.drain();
      await events.flushLive();
    },
  };
  // `C` only narrows what the host passes as context; the runtime stores and hands back JSON.
  return agentRuntime as AgentRuntime<C>;
}

/**
 * The runtime's services, built once in dependency order: sessions and events, the features the
 * lower layers call, agents, the turn runner, the turn queue, then what the host calls.
 */
function createServices(options: AgentRuntimeOptions, store: GuardedSessionStore, crossProcess: boolean) {
  const { registry } = options;
  const limits = runtimeLimits(options);
  const roleOf = createRoleLookup(options.roles, registry);

  // Sessions and events.
  const events = createEventPublisher({ onError: options.onError, liveStore: crossProcess ? store : undefined });
  const status = new RuntimeStatus();
  const states = new SessionStateCache(store, options.sessionCacheSize ?? DEFAULT_SESSION_CACHE_SIZE);
  const gate = new SessionGate({
    store,
    lease: {
      owner: globalThis.crypto.randomUUID(),
      ttlMs: leaseTtlOf(options),
      waitMs: options.leaseWaitMs ?? DEFAULT_LEASE_WAIT_MS,
    },
    onReleaseError: (error, sessionId) => events.tell(error, "lease_release_failed", sessionId),
  });
  const order = new AdmissionOrder();
  const running = new RunningTurns();
  const approvalSessions = new Map<string, string>();
  const dispatch = new TurnDispatch();

  // The features lower layers call, each given what it uses (the queue comes with each call).
  const plans = createPlanReader();
  const agentTools = createAgentTools({ registry, store, order, events, dispatch, limits });
  const notices = createBackgroundNotices({ store, registry, dispatch, events });
  const tasks = taskLifecycle({ store, events });
  const waits = new DelegatedWaits({ store, states, gate, registry, limits });
  const permissionNotices = { store, registry, gate, events };
  // Fire and forget: a failure is reported (`permission_notice_failed`).
  const permission: TurnRunnerHooks["permission"] = (phase, request, session, decision) =>
    notifyPermission(permissionNotices, phase, request, session, decision);

  // Agents, the turn runner, the turn queue.
  const prepare = createAgentPreparer({ options, roleOf, builtinTools: [...agentTools, ...createModeTools(plans)] });
  const runner = createTurnRunner({
    options,
    store,
    events,
    plans,
    pending: { store, states },
    approvalSessions,
    hooks: { planReady: (session, artifactId) => tasks.planReady(session, artifactId), permission },
  });
  const queue = new TurnQueue({
    options,
    registry,
    roleOf,
    limits,
    store,
    states,
    gate,
    running,
    events,
    approvalSessions,
    prepare,
    runner,
    lifecycle: [backgroundLifecycle({ store, events, notices }), tasks],
    waits,
  });

  // What the host calls.
  return {
    registry,
    store,
    events,
    status,
    states,
    gate,
    running,
    dispatch,
    queue,
    waits,
    admission: {
      options,
      registry,
      store,
      status,
      order,
      gate,
      turns: queue,
      steering: { store, states, running, turns: queue, events },
    },
    steering: { store, states, running, turns: queue, events, status },
    decisions: { status, registry, limits, store, gate, approvalSessions, queue, waits, permission },
    roles: { status, registry, roleOf, store, states, gate, running, events },
    conversation: { status, registry, limits, store, states, gate, turns: queue },
    compaction: { options, status, registry, roleOf, store, states, gate, running, prepare, events },
  };
}

/** The services of one runtime (see {@link createServices}). */
type RuntimeServices = ReturnType<typeof createServices>;

/**
 * A listing of one session's pending decisions touches it: messages stored behind a decision that
 * was made (by a process that died before it ran them) are run, in the background.
 */
function lookAtQueue(services: RuntimeServices, query: PendingQuery): void {
  if (query.sessionId === undefined) return;
  const filter = scopeFilterOf("listPending", query, { allowNull: false });
  services.store.getSession(query.sessionId).then(
    // Only a session the caller may see (its tenant guard).
    (session) => session && matchesScopeFilter(session.scope, filter) && services.queue.check(session),
    () => undefined, // the listing itself reports a store that fails
  );
}

/** `runtime.tasks`: the task API over the runtime's services. */
function taskApiOf(services: RuntimeServices): TaskApi {
  const { registry, store, status, queue, running, gate, events, roles } = services;
  return createTaskApi({
    store,
    checkAgent: (agentId) => void agentOf(registry, agentId),
    setRole: (sessionId, role) => setRole(roles, sessionId, role),
    send: (session, content, context) => {
      status.checkOpen();
      return queue.enqueue({
        agent: agentOf(registry, session.agentId),
        session,
        created: false,
        input: { role: "user", content },
        chatContext: { kind: "thread" },
        chain: [],
        // The task API answers the planner: a question it asked is superseded by the reply.
        ifPending: "supersede",
        ...(context !== undefined && { context }),
      });
    },
    stop: (sessionId, reason) => void running.stop(sessionId, reason),
    // In the session's queue: the stopped turn (and any queued before) has ended first.
    deleteSession: (sessionId) => gate.withSession(sessionId, () => store.deleteSession(sessionId)),
    publish: events.publish,
  });
}

/**
 * The last event of a `stream()` whose reader fell `maxBacklog` events behind: a `warning`
 * (code `stream_overflow`) in place of `event`, the first event it does not deliver (whose ids it carries).
 */
function streamOverflow(maxBacklog: number): (event: RuntimeEvent) => RuntimeEvent {
  return (event) => ({
    type: "warning",
    code: "stream_overflow",
    message:
      `This stream fell ${maxBacklog} events behind its turn (maxStreamBacklog) and was ended. ` +
      `The turn goes on and is stored: read its outcome from the store, runtime.events or an event log.`,
    depth: 0,
    parentId: null,
    sessionId: event.sessionId,
    agentId: event.agentId,
    runId: event.runId,
    seq: event.seq,
    ts: Date.now(),
  });
}

/** Throws `InvalidArgumentError` naming every problem of `options`. */
function checkOptions(options: AgentRuntimeOptions): void {
  const problems: string[] = [];
  if (!options?.registry || typeof options.registry.get !== "function") problems.push("registry is required");
  if (!options?.store || typeof options.store.append !== "function") problems.push("store is required");
  if (!options?.providers || typeof options.providers !== "object") problems.push("providers is required");
  const cacheSize = options?.sessionCacheSize;
  if (cacheSize !== undefined && !(Number.isInteger(cacheSize) && cacheSize >= 0))
    problems.push("sessionCacheSize must be a whole number, 0 or more");
  const backlog = options?.maxStreamBacklog;
  if (backlog !== undefined && !(Number.isInteger(backlog) && backlog >= 1))
    problems.push("maxStreamBacklog must be a whole number above 0");
  for (const key of ["takeoverMs", "leaseTtlMs", "leaseWaitMs", "maxBackgroundAgents", "maxAgentHops"] as const) {
    const value = options?.[key];
    if (
      value !== undefined &&
      !(Number.isInteger(value) && value >= 0 && (key === "maxBackgroundAgents" || key === "maxAgentHops" || value > 0))
    ) {
      problems.push(`${key} must be a whole number${key.startsWith("max") ? ", 0 or more" : " above 0"}`);
    }
  }
  const { takeoverMs, leaseTtlMs } = options ?? {};
  if (typeof takeoverMs === "number" && typeof leaseTtlMs === "number" && leaseTtlMs > takeoverMs)
    problems.push(
      `leaseTtlMs (${leaseTtlMs}) is above takeoverMs (${takeoverMs}): a dead process's sessions would wait ${leaseTtlMs} ms to be taken over`,
    );
  const depth = options?.maxDelegationDepth;
  if (depth !== undefined && !(Number.isInteger(depth) && depth >= 0 && depth <= MAX_DELEGATION_DEPTH))
    problems.push(`maxDelegationDepth must be a whole number from 0 to ${MAX_DELEGATION_DEPTH}`);
  if (options?.onError !== undefined && typeof options.onError !== "function")
    problems.push("onError must be a function");
  problems.push(...hookProblems(options?.hooks, "hooks"));
  problems.push(...compactionProblems(options?.compaction));
  if (options?.registry && typeof options.registry.get === "function")
    problems.push(...externalHandlerProblems(options.registry, options.external));
  if (problems.length > 0) throw new InvalidArgumentError(`createAgentRuntime: ${problems.join("; ")}`);
}

import { StoredPrompts } from "./model-call-records.js";
import { EventEmitter } from "eventemitter3";
import { InvalidArgumentError } from "../errors/errors.js";
import { KeyedSerializer } from "../internal/keyed-serializer.js";
import type { LoopEvent } from "../contracts/loop-event.js";
import { createRoleLookup } from "../modes/role-lookup.js";
import type { SessionSummary } from "../contracts/session-store.js";
import type { JsonValue } from "../contracts/json-schema.js";
import { admitSend, admitSystemMessage } from "./admission.js";
import type { AgentRuntime, RuntimeEvent, RuntimeEvents, TurnResult } from "../contracts/agent-runtime.js";
import { createAgentTools } from "./agent-tools.js";
import { decide, isQuestion, listPending } from "./approvals.js";
import { createBackgroundNotices } from "./background-notices.js";
import { runDispatchedTurn } from "./dispatched-turn.js";
import { emitIsolated } from "./emit-isolated.js";
import { DEFAULT_MAX_STREAM_BACKLOG, eventStream } from "./event-stream.js";
import { createModeTools, createPlanReader } from "./mode-tools.js";
import { notifyPermission, type PermissionPhase } from "./permission-notices.js";
import { createAgentPreparer } from "./prepared-agents.js";
import { questionOf } from "./question-answer.js";
import { readAuditLog } from "./read-audit-log.js";
import { appendRecords, storeCall, type AgentRuntimeOptions, type RuntimeContext } from "./runtime-context.js";
import { isBackground } from "./runtime-core.js";
import { agentOf, checkOpen, checkScopeQuery } from "./runtime-lookups.js";
import { acquireSessionLease, DEFAULT_LEASE_TTL_MS } from "./session-lease.js";
import { SessionStateCache } from "./session-state-cache.js";
import { createSessionTurns, type SessionTurns } from "./session-turns.js";
import { setRole } from "./set-role.js";
import { createTaskApi, taskOf, transitionTask } from "./task-api.js";

/** Sessions whose state a runtime keeps between turns, unless `sessionCacheSize` says otherwise. */
const DEFAULT_SESSION_CACHE_SIZE = 256;
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
export function createAgentRuntime<C = JsonValue>(typedOptions: AgentRuntimeOptions<C>): AgentRuntime<C> {
  // The context's type parameter only types what the host writes and reads; inside it is JSON.
  const options = typedOptions as AgentRuntimeOptions;
  checkOptions(options);
  const context = createContext(options);
  const turns: SessionTurns = createSessionTurns(
    context,
    createAgentPreparer(context, [...createAgentTools(context), ...createModeTools(context.plans)]),
    createBackgroundNotices(context),
  );
  context.runTurn = (request) => turns.enqueue(request);
  const { store, registry } = options;
  context.onPlanReady = async (session, artifactId) => {
    const current = await storeCall("getSession", () => store.getSession(session.sessionId));
    const task = current && taskOf(current);
    if (!current || task?.status !== "planning") return undefined;
    await transitionTask({ store, publish: context.publish }, current, "awaiting_review", { planArtifactId: artifactId });
    return task.taskId;
  };
  context.onPermission = (phase: PermissionPhase, request, session, decision) => notifyPermission(context, phase, request, session, decision);

  const maxBacklog = options.maxStreamBacklog ?? DEFAULT_MAX_STREAM_BACKLOG;
  const runtime: AgentRuntime = {
    events: context.events,
    store,
    registry,
    // The result's `structured` is what the loop validated against the same schema.
    send: (input) => admitSend(context, input, () => undefined) as Promise<TurnResult<never>>,
    stream: (input) => eventStream((push) => admitSend(context, input, push), { maxBacklog, overflow: streamOverflow(maxBacklog) }),
    postSystemMessage: (target, text, postOptions) => admitSystemMessage(context, target, text, postOptions),
    async pendingApprovals(query = {}) {
      checkScopeQuery("pendingApprovals", query);
      return (await listPending(context, query)).filter((p) => !isQuestion(p));
    },
    resolveApproval: (requestId, decision) => decide(context, turns, requestId, decision, undefined),
    answerQuestion: (questionId, answer) => {
      const { decisionId, scope, scopePrefix, ...rest } = answer ?? {};
      return decide(
        context,
        turns,
        questionId,
        {
          approved: true,
          ...(decisionId !== undefined && { decisionId }),
          ...(scope !== undefined && { scope }),
          ...(scopePrefix !== undefined && { scopePrefix }),
        },
        answer === undefined || answer === null ? answer : rest,
      );
    },
    async pendingQuestions(query = {}) {
      checkScopeQuery("pendingQuestions", query);
      return (await listPending(context, query)).filter(isQuestion).map((p) => ({
        questionId: p.requestId,
        sessionId: p.sessionId,
        agentId: p.agentId,
        runId: p.runId,
        question: questionOf(p.request),
        at: p.at,
        ...(p.chain !== undefined && { chain: p.chain }),
      }));
    },
    setRole: (sessionId, role) => setRole(context, sessionId, role),
    setTurnDispatcher(dispatch) {
      if (dispatch !== undefined && typeof dispatch !== "function")
        throw new InvalidArgumentError("setTurnDispatcher: dispatch must be a function or undefined");
      context.dispatchTurn = dispatch;
    },
    runDispatchedTurn: (turn) => runDispatchedTurn(context, turn),
    auditLog: (sessionId, query) => readAuditLog(store, sessionId, query),
    tasks: createTaskApi({
      store,
      checkAgent: (agentId) => void agentOf(context, agentId),
      setRole: (sessionId, role) => runtime.setRole(sessionId, role),
      send: (session, content) => {
        checkOpen(context);
        return turns.enqueue({
          agent: agentOf(context, session.agentId),
          session,
          created: false,
          input: { role: "user", content },
          chatContext: { kind: "thread" },
          chain: [],
          // The task API answers the planner: a question it asked is superseded by the reply.
          ifPending: "supersede",
        });
      },
      stop: (sessionId, reason) => {
        const current = context.running.get(sessionId);
        if (!current) return;
        current.reason = reason;
        current.controller.abort(new Error(reason));
      },
      // In the session's queue: the stopped turn (and any queued before) has ended first.
      deleteSession: (sessionId) => context.withSession(sessionId, () => storeCall("deleteSession", () => store.deleteSession(sessionId))),
      publish: (session, event) => context.publish(session, event),
    }),
    async close() {
      context.closed = true;
      context.pendingQueue?.rejectAll(new InvalidArgumentError("The runtime closed while the message waited for a pending decision"));
      await context.inbox.drain();
    },
  };
  // `C` only narrows what the host passes as context; the runtime stores and hands back JSON.
  return runtime as AgentRuntime<C>;
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
  if (cacheSize !== undefined && !(Number.isInteger(cacheSize) && cacheSize >= 0)) problems.push("sessionCacheSize must be a whole number, 0 or more");
  const backlog = options?.maxStreamBacklog;
  if (backlog !== undefined && !(Number.isInteger(backlog) && backlog >= 1)) problems.push("maxStreamBacklog must be a whole number above 0");
  for (const key of ["leaseTtlMs", "leaseWaitMs", "maxBackgroundAgents", "maxAgentHops"] as const) {
    const value = options?.[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0 && (key === "maxBackgroundAgents" || key === "maxAgentHops" || value > 0))) {
      problems.push(`${key} must be a whole number${key.startsWith("lease") ? " above 0" : ", 0 or more"}`);
    }
  }
  if (options?.onError !== undefined && typeof options.onError !== "function") problems.push("onError must be a function");
  if (problems.length > 0) throw new InvalidArgumentError(`createAgentRuntime: ${problems.join("; ")}`);
}

/** The runtime's shared state and operations (`runTurn` is set once the session turns exist). */
function createContext(options: AgentRuntimeOptions): RuntimeContext {
  const { registry, store } = options;
  let seq = 0;
  const admission = new KeyedSerializer<null>();
  const events = new EventEmitter<RuntimeEvents>();
  const onError = options.onError;
  const tell = (error: unknown, code: string, sessionId: string | undefined) => {
    try {
      onError?.(error, { code, ...(sessionId !== undefined && { sessionId }) });
    } catch {
      // onError must not throw; what it throws has nowhere left to go.
    }
  };
  /** Emits `event` to the listeners; a listener that throws is reported and never breaks the caller or the listeners after it. */
  const emit = (event: RuntimeEvent) => emitIsolated(events, "event", event, (error) => tell(error, "listener_failed", event.sessionId));
  const publish = (session: SessionSummary, event: LoopEvent) =>
    emit({ ...event, sessionId: session.sessionId, agentId: session.agentId, runId: "", seq: ++seq, ts: Date.now() });
  const leaseOptions = {
    owner: globalThis.crypto.randomUUID(),
    ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
    waitMs: options.leaseWaitMs ?? DEFAULT_LEASE_WAIT_MS,
  };
  const context: RuntimeContext = {
    options,
    registry,
    store,
    roleOf: createRoleLookup(options.roles, registry),
    events,
    inbox: new KeyedSerializer(),
    states: new SessionStateCache(store, options.sessionCacheSize ?? DEFAULT_SESSION_CACHE_SIZE),
    plans: createPlanReader(),
    nextSeq: () => ++seq,
    approvalSessions: new Map(),
    storedPrompts: new StoredPrompts(),
    running: new Map(),
    closed: false,
    maxDelegationDepth: options.maxDelegationDepth ?? 3,
    maxBackgroundAgents: options.maxBackgroundAgents ?? DEFAULT_MAX_BACKGROUND_AGENTS,
    maxAgentHops: options.maxAgentHops ?? DEFAULT_MAX_AGENT_HOPS,
    runTurn: () => Promise.reject(new Error("the runtime is not set up yet")),
    withSession: (sessionId, task) =>
      context.inbox.run(sessionId, async () => {
        const lease = await acquireSessionLease(store, sessionId, {
          ...leaseOptions,
          onReleaseError: (error) => tell(error, "lease_release_failed", sessionId),
        });
        try {
          return await task(lease);
        } finally {
          await lease.release();
        }
      }),
    record: (session, message) =>
      context.withSession(session.sessionId, async (lease) => {
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
    emit,
    publish,
    admit: (step) => admission.run(null, step),
    report(code, error, session) {
      tell(error, code, session?.sessionId);
      if (session)
        publish(session, { type: "warning", code, message: `${code}: ${error instanceof Error ? error.message : String(error)}`, depth: 0, parentId: null });
    },
  };
  return context;
}

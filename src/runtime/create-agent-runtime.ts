import { labelSessionEvent } from "./turn/event-labels.js";
import { PromptDigests, StoredPrompts } from "./turn/model-call-records.js";
import { InvalidArgumentError } from "../errors/errors.js";
import { MAX_DELEGATION_DEPTH } from "./delegation/delegation-limits.js";
import { externalHandlerProblems } from "./turn/external-agent.js";
import { KeyedSerializer } from "../internal/keyed-serializer.js";
import type { LoopEvent } from "../contracts/loop-event.js";
import { createRoleLookup } from "../modes/role-lookup.js";
import type { SessionSummary } from "../contracts/session-store.js";
import type { JsonValue } from "../contracts/json-schema.js";
import { admitSend, admitSystemMessage } from "./turn/admission.js";
import type { AgentRuntime, RuntimeEvent, TurnResult } from "../contracts/agent-runtime.js";
import { createAgentTools } from "./agent-tools/agent-tools.js";
import { isQuestion, listPending } from "./approvals/pending-listing.js";
import { createBackgroundNotices } from "./delegation/background-notices.js";
import { RuntimeEventEmitter } from "./common/runtime-event-emitter.js";
import { DEFAULT_MAX_STREAM_BACKLOG, eventStream } from "./turn/event-stream.js";
import { createModeTools, createPlanReader } from "./roles/mode-tools.js";
import { PendingQueue } from "./turn/pending-queue.js";
import { checkQueue } from "./turn/queued-messages.js";
import { createAgentPreparer } from "./turn/prepared-agents.js";
import { questionOf } from "./approvals/question-answer.js";
import type { AgentRuntimeOptions, RuntimeContext } from "./common/runtime-context.js";
import { isBackground, type SessionTurns } from "./common/runtime-core.js";
import { agentOf, checkOpen, checkScopeQuery } from "./common/runtime-lookups.js";
import { acquireSessionLease, DEFAULT_LEASE_TTL_MS } from "./session/session-lease.js";
import { SessionStateCache } from "./session/session-state-cache.js";
import { GuardedSessionStore } from "./session/guarded-session-store.js";
import { createSessionTurns } from "./turn/session-turns.js";
import { createTaskApi, transitionTask } from "./tasks/task-api.js";
import { decide } from "./approvals/approvals.js";
import { notifyPermission } from "./approvals/permission-notices.js";
import { readAuditLog } from "./turn/read-audit-log.js";
import { runDispatchedTurn } from "./turn/dispatched-turn.js";
import { setRole } from "./roles/set-role.js";
import { taskOf } from "./tasks/task-state.js";
import { hookProblems } from "../loop/turn-hooks.js";

// The runtime's entry: what the rest of src/ takes from the runtime comes through this file.
export { storedTurnResult } from "./session/stored-turn-result.js";
export type { AgentRuntimeOptions, PolicyTurn, RuntimeErrorInfo } from "./common/runtime-context.js";
export type { ExternalAgentHandler, ExternalAgentReply, ExternalAgentRequest } from "./turn/external-agent.js";
export type { RuntimeTurnRecord } from "./session/session-state.js";

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
  // Built in one step: the context's turn hooks call the session turns made right after it from it.
  const runtime = createContext(options, store, {
    runTurn: (request) => turns.enqueue(request),
    checkQueue: (sessionId) => checkQueue(runtime, runtime.pendingQueue, turns, sessionId),
  });
  const turns: SessionTurns = createSessionTurns(
    runtime,
    createAgentPreparer(runtime, [...createAgentTools(runtime), ...createModeTools(runtime.plans)]),
    createBackgroundNotices(runtime),
  );
  const { registry } = options;

  const maxBacklog = options.maxStreamBacklog ?? DEFAULT_MAX_STREAM_BACKLOG;
  const agentRuntime: AgentRuntime = {
    events: runtime.events,
    store: typedOptions.store,
    registry,
    // The result's `structured` is what the loop validated against the same schema.
    send: (input) => admitSend(runtime, input, () => undefined) as Promise<TurnResult<never>>,
    stream: (input) =>
      eventStream((push) => admitSend(runtime, input, push), { maxBacklog, overflow: streamOverflow(maxBacklog) }),
    postSystemMessage: (target, text, postOptions) => admitSystemMessage(runtime, target, text, postOptions),
    async pendingApprovals(query = {}) {
      checkScopeQuery("pendingApprovals", query);
      return (await listPending(runtime, query)).filter((p) => !isQuestion(p));
    },
    resolveApproval: (requestId, decision) => decide(runtime, turns, requestId, decision, undefined),
    answerQuestion: async (questionId, answer) => {
      const { decisionId, scope, scopePrefix, ...rest } = answer ?? {};
      return decide(
        runtime,
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
      return (await listPending(runtime, query)).filter(isQuestion).map((p) => ({
        questionId: p.requestId,
        sessionId: p.sessionId,
        agentId: p.agentId,
        runId: p.runId,
        question: questionOf(p.request),
        at: p.at,
        ...(p.chain !== undefined && { chain: p.chain }),
      }));
    },
    setRole: (sessionId, role) => setRole(runtime, sessionId, role),
    setTurnDispatcher(dispatch) {
      if (dispatch !== undefined && typeof dispatch !== "function")
        throw new InvalidArgumentError("setTurnDispatcher: dispatch must be a function or undefined");
      runtime.dispatchTurn = dispatch;
    },
    runDispatchedTurn: (turn) => runDispatchedTurn(runtime, turn),
    auditLog: (sessionId, query) => readAuditLog(store, sessionId, query),
    tasks: createTaskApi({
      store,
      checkAgent: (agentId) => void agentOf(runtime, agentId),
      setRole: (sessionId, role) => agentRuntime.setRole(sessionId, role),
      send: (session, content) => {
        checkOpen(runtime);
        return turns.enqueue({
          agent: agentOf(runtime, session.agentId),
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
        const current = runtime.running.get(sessionId);
        if (!current) return;
        current.reason = reason;
        current.controller.abort(new Error(reason));
      },
      // In the session's queue: the stopped turn (and any queued before) has ended first.
      deleteSession: (sessionId) => runtime.withSession(sessionId, () => store.deleteSession(sessionId)),
      publish: (session, event) => runtime.publish(session, event),
    }),
    async close() {
      runtime.closed = true;
      runtime.pendingQueue.rejectAll(
        new InvalidArgumentError("The runtime closed while the message waited for a pending decision"),
      );
      await runtime.inbox.drain();
    },
  };
  // `C` only narrows what the host passes as context; the runtime stores and hands back JSON.
  return agentRuntime as AgentRuntime<C>;
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
  for (const key of ["leaseTtlMs", "leaseWaitMs", "maxBackgroundAgents", "maxAgentHops"] as const) {
    const value = options?.[key];
    if (
      value !== undefined &&
      !(Number.isInteger(value) && value >= 0 && (key === "maxBackgroundAgents" || key === "maxAgentHops" || value > 0))
    ) {
      problems.push(`${key} must be a whole number${key.startsWith("lease") ? " above 0" : ", 0 or more"}`);
    }
  }
  const depth = options?.maxDelegationDepth;
  if (depth !== undefined && !(Number.isInteger(depth) && depth >= 0 && depth <= MAX_DELEGATION_DEPTH))
    problems.push(`maxDelegationDepth must be a whole number from 0 to ${MAX_DELEGATION_DEPTH}`);
  if (options?.onError !== undefined && typeof options.onError !== "function")
    problems.push("onError must be a function");
  problems.push(...hookProblems(options?.hooks, "hooks"));
  if (options?.registry && typeof options.registry.get === "function")
    problems.push(...externalHandlerProblems(options.registry, options.external));
  if (problems.length > 0) throw new InvalidArgumentError(`createAgentRuntime: ${problems.join("; ")}`);
}

/**
 * What the context hands to the session turns (made after it, from it): queuing a turn, looking at a session's queued
 * messages.
 */
interface TurnHooks {
  runTurn: RuntimeContext["runTurn"];
  checkQueue: (sessionId: string) => void;
}

/** The runtime's shared state and operations, complete: nothing is assigned to it afterwards. */
function createContext(options: AgentRuntimeOptions, store: GuardedSessionStore, hooks: TurnHooks): RuntimeContext {
  const { registry } = options;
  let seq = 0;
  const admission = new KeyedSerializer<null>();
  const onError = options.onError;
  const tell = (error: unknown, code: string, sessionId: string | undefined) => {
    try {
      onError?.(error, { code, ...(sessionId !== undefined && { sessionId }) });
    } catch {
      // onError must not throw; what it throws has nowhere left to go.
    }
  };
  // A listener that throws is reported and never breaks the caller or the listeners after it.
  const events = new RuntimeEventEmitter((error, event) => tell(error, "listener_failed", event.sessionId));
  const emit = (event: RuntimeEvent) => void events.emit("event", event);
  const publish = (session: SessionSummary, event: LoopEvent) => {
    const { sessionId, agentId } = session;
    emit(labelSessionEvent({ ...event, sessionId, agentId, runId: "", seq: ++seq, ts: Date.now() }, session));
  };
  const leaseOptions = {
    owner: globalThis.crypto.randomUUID(),
    ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
    waitMs: options.leaseWaitMs ?? DEFAULT_LEASE_WAIT_MS,
  };
  const runtime: RuntimeContext = {
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
    promptDigests: new PromptDigests(),
    running: new Map(),
    closed: false,
    maxDelegationDepth: options.maxDelegationDepth ?? 3,
    maxBackgroundAgents: options.maxBackgroundAgents ?? DEFAULT_MAX_BACKGROUND_AGENTS,
    maxAgentHops: options.maxAgentHops ?? DEFAULT_MAX_AGENT_HOPS,
    runTurn: hooks.runTurn,
    pendingQueue: new PendingQueue(hooks.checkQueue),
    withSession: (sessionId, task) =>
      runtime.inbox.run(sessionId, async () => {
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
      runtime.withSession(session.sessionId, async (lease) => {
        await store.append(
          session.sessionId,
          [{ id: globalThis.crypto.randomUUID(), frame: null, kind: "message", message }],
          { leaseToken: lease.token },
        );
      }),
    async foregroundSession(scope, except, accept) {
      const sessions = await store.listSessions({ scope: scope ?? null, limit: FOREGROUND_CANDIDATES });
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
        publish(session, {
          type: "warning",
          code,
          message: `${code}: ${error instanceof Error ? error.message : String(error)}`,
          depth: 0,
          parentId: null,
        });
    },
    onPlanReady: (session, artifactId) => planReady(store, publish, session, artifactId),
    // Fire and forget: a failure is reported (`permission_notice_failed`).
    onPermission: (phase, request, session, decision) => notifyPermission(runtime, phase, request, session, decision),
  };
  return runtime;
}

/** A plan artifact was stored in `session`: its task, when planning, moves to review; returns the task's id then. */
async function planReady(
  store: RuntimeContext["store"],
  publish: RuntimeContext["publish"],
  session: SessionSummary,
  artifactId: string,
): Promise<string | undefined> {
  const current = await store.getSession(session.sessionId);
  const task = current && taskOf(current);
  if (!current || task?.status !== "planning") return undefined;
  await transitionTask({ store, publish }, current, "awaiting_review", { planArtifactId: artifactId });
  return task.taskId;
}

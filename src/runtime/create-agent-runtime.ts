import EventEmitter from "eventemitter3";
import type { AgentDefinition } from "../agents/agent-definition.js";
import { AgentNotFoundError, ApprovalAlreadyResolvedError, ApprovalNotFoundError, InvalidArgumentError, SessionNotFoundError } from "../errors/errors.js";
import type { Message } from "../messages/message.js";
import type { ChatContext } from "../policy/tool-policy.js";
import { resolveSession } from "../sessions/resolve-session.js";
import type { SessionSummary } from "../sessions/session-store.js";
import type { AgentRuntime, PendingApproval, RuntimeEvent, RuntimeEvents, SendInput, TurnResult } from "./agent-runtime.js";
import { systemMessage } from "../messages/system-message.js";
import { prepareAgent, resolveModel, type PreparedAgent } from "./prepare-agent.js";
import { emergencyReset, repairSession } from "./repair-session.js";
import { runTurn } from "./run-turn.js";
import { storeCall, type AgentRuntimeOptions, type RuntimeContext } from "./runtime-context.js";
import { SessionInbox } from "./session-inbox.js";
import { readFresh, SessionStateCache } from "./session-state-cache.js";
import { eventStream } from "./event-stream.js";
import { createAgentTools } from "./agent-tools.js";
import { notifyPermission, type PermissionPhase } from "./permission-notices.js";
import { isBackground, type RuntimeCore, type TurnRequest } from "./runtime-core.js";

/** Sessions whose state a runtime keeps between turns, unless `sessionCacheSize` says otherwise. */
const DEFAULT_SESSION_CACHE_SIZE = 256;

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
  const context: RuntimeContext = { options, store, events: new EventEmitter<RuntimeEvents>(), inbox: new SessionInbox(), nextSeq: () => ++seq, approvalSessions: new Map() };

  const agentOf = (agentId: string): AgentDefinition => {
    const agent = registry.get(agentId);
    if (!agent) throw new AgentNotFoundError(agentId);
    return agent;
  };
  const checkOpen = () => {
    if (closed) throw new InvalidArgumentError("The runtime is closed");
  };

  /** Queues a turn on its session; the session's state is read and repaired when its turn comes. */
  function enqueueTurn(request: TurnRequest): Promise<TurnResult> {
    const { agent, session, chatContext } = request;
    const turn = context.inbox.run(session.sessionId, async () => {
      const prepared = prepare(agent, session, chatContext);
      const repair = emergencyReset(repairSession(await states.read(session)), request.input, prepared.systemPrompt, options.emergencyContextLimit);
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
        chain: request.chain,
        ...(request.runId !== undefined && { runId: request.runId }),
        ...(request.signal && { signal: request.signal }),
        onEvent: request.onEvent ?? (() => undefined),
      });
    });
    if (isBackground(session)) {
      turn.then(
        (result) => result.status === "error" && notifyParentOfFailure(session, result.error?.message ?? "the run failed"),
        (error: unknown) => notifyParentOfFailure(session, error instanceof Error ? error.message : String(error)),
      );
    }
    return turn;
  }

  /** Tells a background agent's parent, once, that it failed. */
  function notifyParentOfFailure(session: SessionSummary, why: string): void {
    if (notified.has(session.sessionId)) return;
    notified.add(session.sessionId);
    void (async () => {
      const current = await store.getSession(session.sessionId);
      if (!current || current.attributes?.failureNotified) return;
      await store.updateSession(session.sessionId, { attributes: { ...current.attributes, failureNotified: true } });
      const parentId = current.attributes?.parentSessionId;
      const parent = typeof parentId === "string" ? await store.getSession(parentId) : undefined;
      const parentAgent = parent && registry.get(parent.agentId);
      if (!parent || !parentAgent) return;
      const text = `Background agent "${current.agentId}" (session ${current.sessionId}) failed: ${why}`;
      await enqueueTurn({ agent: parentAgent, session: parent, created: false, input: systemMessage(current.agentId, text), chatContext: { kind: "thread" }, chain: [] });
    })().catch(() => undefined);
  }

  const core: RuntimeCore = {
    registry,
    store,
    runTurn: enqueueTurn,
    record: (session, message) =>
      context.inbox.run(session.sessionId, async () => {
        await storeCall("append", () => store.append(session.sessionId, [{ id: globalThis.crypto.randomUUID(), frame: null, kind: "message", message }]));
      }),
    async foregroundSession(except) {
      const sessions = await storeCall("listSessions", () => store.listSessions());
      return sessions.find((s) => !isBackground(s) && s.sessionId !== except);
    },
    maxDelegationDepth: options.maxDelegationDepth ?? 3,
    admit,
  };
  const agentTools = createAgentTools(core);
  // What a turn needs from its agent is the same for the same agent and chat context unless the
  // policy or a prompt section depends on the session: then it is made per turn.
  const perSession = typeof options.policy === "function" || (options.promptSections ?? []).some((section) => typeof section === "function");
  let prepared = new WeakMap<AgentDefinition, Map<string, PreparedAgent>>();
  let toolsSeen: unknown;
  const prepare = (agent: AgentDefinition, session: SessionSummary, chatContext: ChatContext): PreparedAgent => {
    if (perSession) return prepareAgent({ options, agent, session, chatContext, builtinTools: agentTools });
    // Tools given as a function (MCP servers' lists change): a new array drops the prepared toolbelts.
    const tools = typeof options.tools === "function" ? options.tools() : options.tools;
    if (tools !== toolsSeen) {
      toolsSeen = tools;
      prepared = new WeakMap();
    }
    const key = JSON.stringify(chatContext);
    let byContext = prepared.get(agent);
    if (!byContext) prepared.set(agent, (byContext = new Map()));
    let entry = byContext.get(key);
    if (!entry) byContext.set(key, (entry = prepareAgent({ options, agent, session, chatContext, builtinTools: agentTools })));
    return entry;
  };
  context.onPermission = (phase: PermissionPhase, request, session, decision) => notifyPermission(core, phase, request, session, decision);

  async function startTurn(input: SendInput, onEvent: (event: RuntimeEvent) => void): Promise<TurnResult> {
    checkOpen();
    const agent = agentOf(input.agentId);
    const content = input.content;
    if (typeof content === "string" ? content.length === 0 : !Array.isArray(content) || content.length === 0) {
      throw new InvalidArgumentError("send: content must be a non-empty string or a non-empty array of parts");
    }
    const chatContext = input.chatContext ?? { kind: "thread" };
    // Fail on a misconfigured agent before a session is created.
    resolveModel(options, agent);
    const admitted = await admit(async () => {
      const { session, created } = await storeCall("resolveSession", () => resolveSession(store, agent.agentId, input.session));
      // Wrapped so the admission step does not wait for the turn itself.
      return { turn: enqueueTurn({ agent, session, created, input: { role: "user", content }, chatContext, chain: [], ...(input.signal && { signal: input.signal }), onEvent }) };
    });
    return admitted.turn;
  }

  /** The session of an approval request: known to this process, else found by scanning the store. */
  async function findApproval(requestId: string): Promise<SessionSummary> {
    const known = context.approvalSessions.get(requestId);
    const session = known === undefined ? undefined : await storeCall("getSession", () => store.getSession(known));
    if (session) return session;
    for (const session of await storeCall("listSessions", () => store.listSessions())) {
      // A scan reads past the cache: it would push out the sessions that are in use.
      if ((await readFresh(store, session.sessionId)).approvals.has(requestId)) return session;
    }
    throw new ApprovalNotFoundError(requestId);
  }

  const runtime: AgentRuntime = {
    events: context.events,
    store,
    registry,
    send: (input) => startTurn(input, () => undefined),
    stream: (input) => eventStream((push) => startTurn(input, push)),
    async postSystemMessage(target, text, postOptions) {
      checkOpen();
      if (!postOptions?.origin) throw new InvalidArgumentError("postSystemMessage: origin is required");
      if (target.sessionId === undefined && target.agentId === undefined) throw new InvalidArgumentError("postSystemMessage: target needs a sessionId or an agentId");
      if (target.sessionId === undefined) agentOf(target.agentId!);
      const admitted = await admit(async () => {
        let session: SessionSummary;
        let created = false;
        if (target.sessionId !== undefined) {
          const found = await storeCall("getSession", () => store.getSession(target.sessionId!));
          if (!found) throw new SessionNotFoundError(`Unknown session "${target.sessionId}"`, { sessionId: target.sessionId });
          session = found;
        } else {
          ({ session, created } = await storeCall("resolveSession", () => resolveSession(store, target.agentId!, "latest-or-create")));
        }
        const agent = agentOf(session.agentId);
        const message = systemMessage(postOptions.origin, text, { silent: postOptions.silent === true });
        if (message.silent) return { done: core.record(session, message) };
        return { done: enqueueTurn({ agent, session, created, input: message, chatContext: { kind: "thread" }, chain: [] }) };
      });
      await admitted.done;
    },
    async pendingApprovals(query = {}) {
      const sessions =
        query.sessionId !== undefined
          ? [await storeCall("getSession", () => store.getSession(query.sessionId!))].filter((s): s is SessionSummary => s !== undefined)
          : await storeCall("listSessions", () => store.listSessions());
      const pending: PendingApproval[] = [];
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
          });
        }
      }
      return pending;
    },
    async resolveApproval(requestId, decision) {
      checkOpen();
      const session = await findApproval(requestId);
      const agent = agentOf(session.agentId);
      return context.inbox.run(session.sessionId, async () => {
        const state = await states.read(session);
        const entry = state.approvals.get(requestId);
        if (!entry) throw new ApprovalNotFoundError(requestId);
        if (entry.decision || !state.suspended || !state.pending.includes(entry.request)) throw new ApprovalAlreadyResolvedError(requestId);
        const request = entry.request.request;
        await storeCall("append", () =>
          store.append(session.sessionId, [
            {
              id: `${requestId}:decision`,
              frame: entry.request.frame,
              kind: "approval",
              request,
              decision: decision.approved ? "approved" : "denied",
              ...(!decision.approved && decision.reason !== undefined && { reason: decision.reason }),
            },
          ]),
        );
        const suspendedRun = state.suspended.runId;
        context.approvalSessions.delete(requestId);
        const remaining = state.pending.filter((p) => p !== entry.request);
        if (remaining.length > 0) return stillSuspended(session, agent, suspendedRun, remaining.map((p) => p.request));
        const decisions: Record<string, { approved: boolean; reason?: string; requestId?: string }> = {};
        for (const [toolCallId, record] of state.decisions) {
          decisions[toolCallId] = { approved: record.decision === "approved", requestId: record.request.requestId, ...(record.reason !== undefined && { reason: record.reason }) };
        }
        decisions[request.toolCallId] = { approved: decision.approved, requestId, ...(decision.reason !== undefined && { reason: decision.reason }) };
        if (request.name === "request_permission") context.onPermission?.("decided", request, session, decision);
        const chatContext = state.chatContexts.get(suspendedRun) ?? { kind: "thread" };
        const prepared = prepare(agent, session, chatContext);
        return runTurn(context, {
          agent,
          session,
          created: false,
          prepared,
          history: state.history,
          historyTokens: state.historyTokens,
          input: undefined,
          resume: { frames: state.frames, decisions, results: state.suspended.results },
          resumeOf: suspendedRun,
          chain: [],
          chatContext,
          onEvent: () => undefined,
        });
      });
    },
    async close() {
      closed = true;
      await context.inbox.drain();
    },
  };
  return runtime;
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

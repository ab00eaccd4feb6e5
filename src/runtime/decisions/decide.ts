import type { AgentDefinition } from "../../contracts/agent-definition.js";
import {
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  ApprovalSupersededError,
  InvalidArgumentError,
} from "../../errors/errors.js";
import type { Message } from "../../contracts/message.js";
import { isApprovalIndexStore } from "../../sessions/session-store.js";
import type { ApprovalRecord, SessionSummary } from "../../contracts/session-store.js";
import { createJsonSchemaValidator } from "../../schema/validate.js";
import { errorMessage } from "../../loop/tool-result.js";
import type { ResolveDecision, PendingApproval, TurnResult } from "../../contracts/agent-runtime.js";
import type { ChatContext } from "../../contracts/tool-policy.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import { matchesScopeFilter, tenantGuardFilter } from "../../internal/scope-filter.js";
import { approvalDecisionRecord, resumeDecision } from "../records/approval-decision.js";
import { newLineage } from "../records/lineage.js";
import type { RuntimeLimits } from "../records/runtime-limits.js";
import type { SessionState, TurnWaiter } from "../records/session-state.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { RuntimeStatus } from "../session/runtime-status.js";
import type { SessionGate } from "../session/session-gate.js";
import { readFresh } from "../session/session-state-cache.js";
import { turnResultOf } from "../session/stored-turn-result.js";
import { agentOf } from "../agents/agent-lookups.js";
import { answerResult, questionOf } from "../agents/question-answer.js";
import type { TurnRunnerHooks } from "../runner/turn-runner-deps.js";
import { hasStoredQueue } from "../queue/queued-messages.js";
import { priorRun } from "../queue/rerun.js";
import type { TurnQueue } from "../queue/turn-queue.js";
import type { DelegatedWaits } from "../delegation/delegated-waits.js";

/** What deciding approvals and answering questions needs. */
export interface DecideDeps {
  status: RuntimeStatus;
  registry: AgentRegistry;
  limits: RuntimeLimits;
  store: GuardedSessionStore;
  gate: SessionGate;
  /** Sessions of approval requests stored by this process (others are found in the store). */
  approvalSessions: Map<string, string>;
  /** Recovers, resumes and queues the decided turns. */
  queue: TurnQueue;
  /** Delivers a resumed chain's end to whoever waits on it. */
  waits: DelegatedWaits;
  /** Told when a `request_permission` call is decided. */
  permission: TurnRunnerHooks["permission"];
}

type Deps = Readonly<DecideDeps>;

/** The session of an approval request: known to this process, else from the store's index, else found by scanning. */
export async function findApproval(
  deps: Pick<Deps, "store" | "approvalSessions">,
  requestId: string,
): Promise<SessionSummary> {
  const { store } = deps;
  if (typeof requestId !== "string" || requestId === "")
    throw new InvalidArgumentError("resolveApproval: requestId must be a non-empty string");
  const known = deps.approvalSessions.get(requestId);
  const session = known === undefined ? undefined : await store.getSession(known);
  if (session) return session;
  if (isApprovalIndexStore(store)) {
    const indexed = await store.findApproval(requestId);
    const found = indexed && (await store.getSession(indexed.sessionId));
    if (found) return found;
    throw new ApprovalNotFoundError(requestId);
  }
  for (const session of await store.listSessions()) {
    // A scan reads past the cache: it would push out the sessions that are in use.
    if ((await readFresh(store, session.sessionId)).approvals.has(requestId)) return session;
  }
  throw new ApprovalNotFoundError(requestId);
}

/**
 * What a decision gives the call besides approving it: a question's answer (`answerQuestion`), or
 * a client tool call's result (`submitToolResult`, already checked to be JSON of bounded size).
 */
export type DecisionAnswer =
  { kind: "question"; answer: unknown } | { kind: "client"; output: unknown; isError: boolean };

/** The operation each kind of request is decided by. */
const OPERATIONS = { approval: "resolveApproval", question: "answerQuestion", client: "submitToolResult" } as const;
type RequestKind = keyof typeof OPERATIONS;

/** What kind of request a stored request record is. */
function kindOf(record: ApprovalRecord): RequestKind {
  return record.question === true ? "question" : record.request.client === true ? "client" : "approval";
}

/**
 * The call's result a decision carries, checked against the request: a question's answer must be
 * one it takes, a client's output must be valid for the tool's output schema (unless an error).
 * Throws `InvalidArgumentError` before anything is stored.
 */
function resultOf(record: ApprovalRecord, answer: DecisionAnswer | undefined): unknown {
  if (answer === undefined) return undefined;
  if (answer.kind === "question")
    return answerResult(questionOf(record.request), answer.answer as Parameters<typeof answerResult>[1]);
  if (!answer.isError && record.outputSchema !== undefined) {
    let checked: ReturnType<ReturnType<typeof createJsonSchemaValidator>>;
    try {
      checked = createJsonSchemaValidator(record.outputSchema)(answer.output);
    } catch (error) {
      throw new InvalidArgumentError(
        `submitToolResult: the output schema of "${record.request.name}" could not be used (${errorMessage(error)})`,
      );
    }
    if (!checked.ok)
      throw new InvalidArgumentError(
        `submitToolResult: the output does not match the output schema of "${record.request.name}": ${checked.message}`,
      );
  }
  return answer.output;
}

/**
 * Decides an approval request, answers a question, or gives a client tool call its result
 * (`answer` given): compare-and-set on the decision record, then, once the turn has no pending
 * request left, resumes it.
 */
export async function decide(
  deps: Deps,
  requestId: string,
  decision: ResolveDecision,
  answer: DecisionAnswer | undefined,
): Promise<TurnResult> {
  deps.status.checkOpen();
  const wanted: RequestKind = answer?.kind ?? "approval";
  const operation = OPERATIONS[wanted];
  if (typeof requestId !== "string" || requestId === "")
    throw new InvalidArgumentError(
      `${operation}: ${wanted === "question" ? "questionId" : "requestId"} must be a non-empty string`,
    );
  const guard = tenantGuardFilter(
    operation,
    decision.scope === undefined && decision.scopePrefix === undefined ? undefined : decision,
  );
  const session = await findApproval(deps, requestId);
  // Another tenant's request is as unknown as a missing one.
  if (!matchesScopeFilter(session.scope, guard)) throw new ApprovalNotFoundError(requestId);
  const agent = agentOf(deps.registry, session.agentId);
  type Continue = { continueRun: string; chatContext: ChatContext; hostContext: JsonValue | undefined };
  let waiter: TurnWaiter | undefined;
  let queued = false;
  // Resolved with the resumed turn's result while the same hold runs the messages queued behind it.
  let answered!: (result: TurnResult) => void;
  const early = new Promise<TurnResult>((resolve) => (answered = resolve));
  const held = deps.gate.withSession(session.sessionId, async (lease): Promise<TurnResult | Continue> => {
    const lineage = newLineage(deps.limits, agent);
    const state = await deps.queue.recoverDecided(session, lease, lineage);
    queued = hasStoredQueue(state);
    const entry = state.approvals.get(requestId);
    if (!entry) throw new ApprovalNotFoundError(requestId);
    const request = entry.request.request;
    if (request.waitsOn !== undefined)
      throw new InvalidArgumentError(
        `${operation}: "${requestId}" waits for agent "${request.waitsOn.agentId}", not for a person: decide what it waits on (pendingApprovals / pendingQuestions of session "${session.sessionId}" list it)`,
      );
    // The chain's end is handed to whoever waits on it (after this session's lease is released).
    waiter = state.waiter;
    // A question is answered, never approved; an approval is never answered; a client call gets its result.
    const kind = kindOf(entry.request);
    if (kind !== wanted) throw new InvalidArgumentError(`${operation}: "${requestId}" is ${KIND_NAMES[kind]}`);
    if (entry.decision && decision.decisionId !== undefined && entry.decision.decisionId === decision.decisionId) {
      // This decider's decision was stored before (a retried job): its turn resumed (above, at
      // the latest). A resumed turn whose process died is continued (below); else its outcome.
      if (state.openTurn !== undefined) {
        return {
          continueRun: state.openTurn.replace(/:retry-\d+$/, ""),
          chatContext: state.chatContexts.get(state.openTurn) ?? { kind: "thread" as const },
          hostContext: state.hostContexts.get(state.openTurn),
        };
      }
      return resumedOutcome(deps.store, session, agent, entry.request.runId ?? state.suspended?.runId, state);
    }
    const suspended = state.suspended;
    // A request a newer message superseded says so: the approver's decision came too late.
    if (entry.decision?.reason === "superseded" && entry.decision.decisionId === undefined)
      throw new ApprovalSupersededError(requestId);
    if (entry.decision || !suspended || !state.pending.includes(entry.request))
      throw new ApprovalAlreadyResolvedError(requestId);
    const result = resultOf(entry.request, answer);
    const isError = answer?.kind === "client" && answer.isError;
    // Compare-and-set: the decision's id is fixed, append is idempotent by id, so exactly one
    // decider's record is stored; whoever finds another decisionId there lost.
    const decisionId = decision.decisionId ?? globalThis.crypto.randomUUID();
    const record = approvalDecisionRecord(request, entry.request.frame, {
      approved: decision.approved,
      ...(decision.reason !== undefined && { reason: decision.reason }),
      decisionId,
      answer: result,
      answerIsError: isError,
    });
    const [stored] = await deps.store.append(session.sessionId, [record], { leaseToken: lease.token });
    if ((stored as { decisionId?: string } | undefined)?.decisionId !== decisionId)
      throw new ApprovalAlreadyResolvedError(requestId);
    // Processes waiting on the session (messages queued behind this decision) look at it.
    deps.store.hintSession(session.sessionId);
    deps.approvalSessions.delete(requestId);
    const remaining = state.pending.filter((p) => p !== entry.request);
    if (remaining.length > 0)
      return stillSuspended(
        session,
        agent,
        suspended.runId,
        remaining.map((p) => p.request),
      );
    if (request.name === "request_permission") deps.permission("decided", request, session, decision);
    const resumed = await deps.queue.resumeSuspended(session, state, suspended, lease, lineage, {
      [request.toolCallId]: resumeDecision(requestId, decision, result, isError),
    });
    // The messages stored behind this decision run now, under the same lease (nobody else can take
    // the session in between); the decider has its answer meanwhile. A delegated session answers
    // up its chain first (below), then runs them.
    if (!queued || resumed.status === "suspended" || waiter !== undefined) return resumed;
    queued = false;
    answered(resumed);
    await deps.queue.releaseHeld(session, lease);
    return resumed;
  });
  const outcome = await Promise.race([held, early]).catch(async (error: unknown) => {
    // Decided before (by someone else): a chain step a crash left half done above it is finished all the same.
    if (waiter !== undefined && ApprovalAlreadyResolvedError.isInstance(error))
      await deps.waits.recoverAbove(deps.queue, session);
    throw error;
  });
  // Messages stored behind the decision not run above run now (in the background, in the session's order).
  if (queued) deps.queue.check(session);
  if (!("continueRun" in outcome)) return deps.waits.answerUp(deps.queue, waiter, outcome);
  return deps.queue.enqueue({
    agent,
    session,
    created: false,
    input: { role: "user", content: "" },
    chatContext: outcome.chatContext,
    ...(outcome.hostContext !== undefined && { context: outcome.hostContext }),
    chain: [],
    runId: outcome.continueRun,
    continueOnly: true,
  });
}

/** What a request of each kind is, and how it is decided (for a call of the wrong operation). */
const KIND_NAMES: Record<RequestKind, string> = {
  approval: "an approval request: use resolveApproval",
  question: "a question: use answerQuestion",
  client: "a client tool call: use submitToolResult",
};

/** The outcome of the turn that resumed `suspendedRunId` (rebuilt from the log), else: still suspended. */
async function resumedOutcome(
  store: GuardedSessionStore,
  session: SessionSummary,
  agent: AgentDefinition,
  suspendedRunId: string | undefined,
  state: SessionState,
): Promise<TurnResult> {
  const records = await store.load(session.sessionId);
  const resumed =
    suspendedRunId === undefined
      ? undefined
      : records.findLast(
          (r) =>
            r.kind === "turn" &&
            (r as { phase?: string }).phase === "start" &&
            (r as { resumeOf?: string }).resumeOf === suspendedRunId,
        );
  let runId = (resumed as { runId?: string } | undefined)?.runId;
  if (runId !== undefined) {
    // Its latest continuation, when its process died.
    const runs = new Map<string, string | null>();
    for (const r of records)
      if (r.kind === "turn")
        runs.set((r as { runId: string }).runId, (r as { phase: string }).phase === "start" ? null : "ended");
    runId = priorRun(runs, runId)?.runId ?? runId;
  }
  const outcome = runId !== undefined ? turnResultOf(records, session, runId, false) : undefined;
  return (
    outcome ??
    stillSuspended(
      session,
      agent,
      suspendedRunId ?? "",
      state.pending.map((p) => p.request),
    )
  );
}

/** The result of a decision that leaves the turn suspended (other requests still wait). */
function stillSuspended(
  session: SessionSummary,
  agent: AgentDefinition,
  runId: string,
  pending: PendingApproval["request"][],
): TurnResult {
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

import type { ApprovalRequest } from "../../contracts/loop-result.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { HistoryRecord, NewRecord, SessionSummary } from "../../contracts/session-store.js";
import type { RuntimeEvent } from "../../contracts/agent-runtime.js";
import type { AgentRuntimeOptions } from "../records/runtime-options.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { PendingReader } from "../session/pending-listing.js";
import type { EventPublisher } from "../events/event-publisher.js";
import { turnLabels } from "../events/event-labels.js";
import { ASK_USER, offersModeTool, type PlanReader } from "../agents/mode-tools.js";
import { AuditTrail } from "./audit-trail.js";
import { ModelCallLog } from "./model-call-log.js";
import type { PromptDigests, StoredPrompts } from "./model-call-records.js";
import type { TurnSetup } from "./turn-setup.js";

/**
 * What a turn tells the features built on it, as it runs (they are built before the runner and
 * handed to it): a plan artifact was stored, a `request_permission` call was presented or decided.
 */
export interface TurnRunnerHooks {
  /** A plan artifact was stored in `session`; returns the id of the task it moved, if any. */
  planReady(session: SessionSummary, artifactId: string): Promise<string | undefined>;
  /** A `request_permission` call was presented for approval, or decided. Must not throw. */
  permission(
    phase: "requested" | "decided",
    request: ApprovalRequest,
    session: SessionSummary,
    decision?: { approved: boolean; reason?: string },
  ): void;
}

/** What the turn runner needs. */
export interface TurnRunnerDeps {
  options: AgentRuntimeOptions;
  store: GuardedSessionStore;
  events: Pick<EventPublisher, "nextSeq" | "emit">;
  /** Plans read by `create_artifact` calls, each parsed once per call. */
  plans: PlanReader;
  /** Reads what a waiting call waits on (the requests a turn reports in its place). */
  pending: PendingReader;
  /** Sessions of approval requests stored by this process (others are found in the store). */
  approvalSessions: Map<string, string>;
  hooks: TurnRunnerHooks;
}

/** The runner's deps and its own memory of the prompts it stored. */
export interface RunnerServices extends Readonly<TurnRunnerDeps> {
  /** Prompt digests stored per session (see `ModelCallLog`). */
  readonly storedPrompts: StoredPrompts;
  /** Digests of the prompts and tool lists seen (see `ModelCallLog`). */
  readonly promptDigests: PromptDigests;
}

/** What the parts of one running turn share. */
export interface TurnScope {
  deps: RunnerServices;
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

/** The scope of one turn about to run. */
export function turnScope(deps: RunnerServices, setup: TurnSetup): TurnScope {
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
    full.seq = deps.events.nextSeq();
    full.ts = Date.now();
    label(full);
    setup.onEvent(full);
    deps.events.emit(full);
  };
  const hostTools = deps.options.tools;
  const audit = new AuditTrail({
    session,
    agentId: agent.agentId,
    runId,
    tools: prepared.tools,
    hostTools: () => (typeof hostTools === "function" ? hostTools() : (hostTools ?? [])),
    policy: prepared.policy,
    history: setup.history,
    resume: setup.resume,
    deliver: deps.options.audit,
    warn: publish,
  });
  return {
    deps,
    setup,
    sessionId,
    runId,
    next: () => counter++,
    publish,
    append: (records) => deps.store.append(sessionId, records, { leaseToken: setup.leaseToken }),
    audit,
    asks: offersModeTool(prepared.tools, ASK_USER),
    surfaced: new Map(),
    models: new ModelCallLog(runId, deps.storedPrompts.of(sessionId, session.createdAt), deps.promptDigests),
  };
}

import type { ApprovalRequest } from "../../contracts/loop-result.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { HistoryRecord, NewRecord } from "../../contracts/session-store.js";
import type { RuntimeEvent } from "../../contracts/agent-runtime.js";
import { turnLabels } from "../events/event-labels.js";
import { ASK_USER, offersModeTool } from "../agents/mode-tools.js";
import { AuditTrail } from "./audit-trail.js";
import { ModelCallLog } from "./model-call-log.js";
import { TurnControl } from "./turn-control.js";
import type { RunnerServices } from "./turn-runner-deps.js";
import type { TurnSetup } from "./turn-setup.js";

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
  /** What the turn watches for in its log (stop requests, steered messages), when it is watched. */
  control: TurnControl | undefined;
  /** Whether the turn stored a root answer yet (its first is stored under the run id). */
  answered: boolean;
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
    setup.tell?.(full);
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
  const stop = setup.stop;
  const control = stop && new TurnControl({ store: deps.store, sessionId, runId, chainRunId: setup.chainRunId, stop });
  return {
    deps,
    setup,
    sessionId,
    runId,
    next: () => counter++,
    publish,
    append: control
      ? async (records) => {
          const stored = await deps.store.append(sessionId, records, { leaseToken: setup.leaseToken });
          control.observe(stored);
          return stored;
        }
      : (records) => deps.store.append(sessionId, records, { leaseToken: setup.leaseToken }),
    audit,
    asks: offersModeTool(prepared.tools, ASK_USER),
    surfaced: new Map(),
    models: new ModelCallLog(runId, deps.storedPrompts.of(sessionId, session.createdAt), deps.promptDigests),
    control,
    answered: false,
  };
}

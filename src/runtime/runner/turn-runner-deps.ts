import type { ApprovalRequest } from "../../contracts/loop-result.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { AgentRuntimeOptions } from "../records/runtime-options.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { PendingReader } from "../session/pending-listing.js";
import type { EventPublisher } from "../events/event-publisher.js";
import type { PlanReader } from "../agents/mode-tools.js";
import type { PromptDigests, StoredPrompts } from "./model-call-records.js";

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

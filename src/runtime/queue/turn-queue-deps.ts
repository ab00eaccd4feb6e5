import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { RoleLookup } from "../../modes/role-lookup.js";
import type { AgentRuntimeOptions } from "../records/runtime-options.js";
import type { RuntimeLimits } from "../records/runtime-limits.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { SessionStateCache } from "../session/session-state-cache.js";
import type { SessionGate } from "../session/session-gate.js";
import type { RunningTurns } from "../session/running-turns.js";
import type { EventPublisher } from "../events/event-publisher.js";
import type { PrepareAgent } from "../agents/prepared-agents.js";
import type { TurnRunner } from "../runner/run-turn.js";
import type { TurnLifecycle, WaitRecovery } from "./turn-lifecycle.js";

/** What the turn queue needs. */
export interface TurnQueueDeps {
  options: AgentRuntimeOptions;
  registry: AgentRegistry;
  roleOf: RoleLookup;
  limits: RuntimeLimits;
  store: GuardedSessionStore;
  states: SessionStateCache;
  gate: SessionGate;
  running: RunningTurns;
  events: EventPublisher;
  /** Sessions of approval requests stored by this process (a superseded one is forgotten). */
  approvalSessions: Map<string, string>;
  prepare: PrepareAgent;
  runner: TurnRunner;
  /** The features' lifecycle points, called in this order. */
  lifecycle: readonly TurnLifecycle[];
  /** Recovers delegated waits before a suspended session is used. */
  waits: WaitRecovery;
}

import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { RuntimeLimits } from "../records/runtime-limits.js";
import type { AdmissionOrder } from "../session/admission-order.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { EventPublisher } from "../events/event-publisher.js";
import type { TurnDispatch } from "../delegation/turn-dispatch.js";

/**
 * What the runtime's agent tools need, given once when they are made (before the turn queue).
 * What starts turns is not here: each call finds it in its turn's host (`ctx[RUNTIME_HOST].turns`).
 */
export interface AgentToolDeps {
  registry: AgentRegistry;
  store: GuardedSessionStore;
  /** Session resolution in call order with `send` and `postSystemMessage`. */
  order: AdmissionOrder;
  events: Pick<EventPublisher, "publish" | "report">;
  /** A host's turn dispatcher, when one is installed. */
  dispatch: TurnDispatch;
  limits: RuntimeLimits;
}

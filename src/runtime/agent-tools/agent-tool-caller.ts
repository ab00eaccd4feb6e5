import type { AgentDefinition } from "../../contracts/agent-definition.js";
import { agentVisibility } from "../../agents/agent-visibility.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { ToolContext } from "../../contracts/tool.js";
import type { Lineage } from "../records/lineage.js";
import type { TurnStarter } from "../records/turn-request.js";
import type { RuntimeToolHost } from "../runner/runtime-tool-host.js";
import type { AgentToolDeps } from "./agent-tool-deps.js";
import type { HandOffRequest } from "../delegation/hand-off.js";
import { RUNTIME_HOST } from "../../internal/runtime-host.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { TurnBudget } from "../../loop/budget.js";

/** Who is calling the agent tools. */
export interface AgentToolCaller {
  agent: AgentDefinition;
  session: SessionSummary;
  /** Agents already waiting in this delegation chain (outermost first), not counting the caller. */
  chain: readonly string[];
  /** The caller turn's lineage (shared background limits). */
  lineage: Lineage;
  /** The caller's run (with the tool call's id, what makes a hand-off's run id). */
  runId: string;
  /** Gives model calls of the caller's budget to a dispatched turn. */
  giveLlmCalls?: (count: number) => void;
  /** The caller turn's host context: the turns it starts inherit it. */
  context: JsonValue | undefined;
  /** The caller turn's budget: a turn it waits on (sync `agents_message`) counts against it. */
  budget?: TurnBudget;
  /** What starts the turns the call sets off (the queue running the caller's turn). */
  turns: TurnStarter;
}

/** The caller of a built-in tool, from its context (the runtime's `ctx[RUNTIME_HOST]`). */
export async function callerOf(deps: Readonly<AgentToolDeps>, ctx: ToolContext): Promise<AgentToolCaller> {
  const host = (ctx as ToolContext & { [RUNTIME_HOST]?: Partial<RuntimeToolHost> })[RUNTIME_HOST];
  const agent = host?.agentId === undefined ? undefined : deps.registry.get(host.agentId);
  const session = host?.sessionId === undefined ? undefined : await deps.store.getSession(host.sessionId);
  if (!agent || !session || !host?.lineage || host.runId === undefined || host.turns === undefined)
    throw new Error("This tool runs only inside an agent runtime turn.");
  return {
    agent,
    session,
    chain: host.chain ?? [],
    lineage: host.lineage,
    runId: host.runId,
    context: host.context,
    turns: host.turns,
    ...(host.giveLlmCalls !== undefined && { giveLlmCalls: host.giveLlmCalls }),
    ...(host.budget !== undefined && { budget: host.budget }),
  };
}

/** A session of the caller's scope, or undefined (another scope's session is as unknown as a missing one). */
export async function sessionInScope(
  deps: Readonly<AgentToolDeps>,
  caller: AgentToolCaller,
  sessionId: string,
): Promise<SessionSummary | undefined> {
  const session = await deps.store.getSession(sessionId);
  return session !== undefined && session.scope === caller.session.scope ? session : undefined;
}

/** The lineage of a turn the caller triggers by messaging another agent: one hop further, refused past the limit. */
export function nextHop(deps: Readonly<AgentToolDeps>, caller: AgentToolCaller): Lineage {
  const hops = caller.lineage.hops + 1;
  if (hops > deps.limits.maxAgentHops) {
    throw new Error(
      `Refused: agent-to-agent messages from one user message are limited to ${deps.limits.maxAgentHops} hops; this one would be hop ${hops}.`,
    );
  }
  const { counters } = caller.lineage;
  if (counters.llmCalls >= counters.maxLlmCalls) {
    throw new Error(
      `Refused: the model calls budget shared by this conversation and its background agents (${counters.maxLlmCalls}) is spent.`,
    );
  }
  return { counters, hops };
}

/**
 * The agent `agentId` if the caller may reach it (registered, visible to the caller's agent); else throws the reason.
 */
export function reachable(deps: Readonly<AgentToolDeps>, caller: AgentToolCaller, agentId: string): AgentDefinition {
  const target = deps.registry.get(agentId);
  if (!target) throw new Error(`Unknown agent "${agentId}".`);
  const visibility = agentVisibility(caller.agent, target);
  if (!visibility.visible) throw new Error(visibility.reason);
  return target;
}

/**
 * What ties a hand-off to the tool call that makes it: its key, the caller's budget to charge, and the context it
 * inherits.
 */
export function handOffFrom(
  caller: AgentToolCaller,
  ctx: ToolContext,
  kind: string,
): Pick<HandOffRequest, "key" | "charge" | "context"> {
  return {
    key: [caller.session.sessionId, caller.runId, ctx.toolCallId, kind],
    ...(caller.context !== undefined && { context: caller.context }),
    ...(caller.giveLlmCalls !== undefined && { charge: caller.giveLlmCalls }),
  };
}

/** `{ scope }` of a session when it has one (spread into create and resolve calls). */
export function scopeOf(session: SessionSummary): { scope?: string } {
  return session.scope === undefined ? {} : { scope: session.scope };
}

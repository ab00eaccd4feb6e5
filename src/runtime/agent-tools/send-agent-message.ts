import { agentVisibility } from "../../agents/agent-visibility.js";
import { systemMessage } from "../../messages/system-message.js";
import { resolveSession } from "../../sessions/resolve-session.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import { isBackground } from "../records/background-attributes.js";
import { foregroundSession } from "../session/foreground-session.js";
import type { AgentToolDeps } from "./agent-tool-deps.js";
import type { AgentToolCall } from "./agent-tool-inputs.js";
import { handOffTurn } from "../delegation/hand-off.js";
import { callerOf, sessionInScope, nextHop, reachable, handOffFrom, scopeOf } from "./agent-tool-caller.js";

/**
 * `send_agent_message`: a system message to another agent's session, which answers it in a turn of its own (nobody
 * waits).
 */
export function sendAgentMessage(deps: Readonly<AgentToolDeps>): AgentToolCall<"send_agent_message"> {
  return async (args, ctx) => {
    const caller = await callerOf(deps, ctx);
    const parentId = caller.session.attributes?.parentSessionId;
    let session: SessionSummary | undefined;
    if (args.sessionId !== undefined) {
      session = await sessionInScope(deps, caller, args.sessionId);
      if (!session) throw new Error(`Unknown session "${args.sessionId}".`);
      const related =
        session.attributes?.parentSessionId === caller.session.sessionId || parentId === session.sessionId;
      if (!related && session.agentId !== caller.agent.agentId) reachable(deps, caller, session.agentId);
    } else if (args.agentId !== undefined) {
      reachable(deps, caller, args.agentId);
      session = (await resolveSession(deps.store, args.agentId, "latest-or-create", scopeOf(caller.session))).session;
    } else {
      // A background agent reports to the session that started it, never to another conversation.
      if (typeof parentId === "string") session = await sessionInScope(deps, caller, parentId);
      session ??= await foregroundSession(
        deps,
        caller.session.scope,
        caller.session.sessionId,
        (agent) => agentVisibility(caller.agent, agent).visible,
      );
      if (!session) throw new Error("There is no agent you may message: give sessionId or agentId.");
    }
    const agent = deps.registry.get(session.agentId);
    if (!agent) throw new Error(`Session "${session.sessionId}" belongs to an unknown agent "${session.agentId}".`);
    const lineage = nextHop(deps, caller);
    const message = systemMessage(caller.agent.agentId, args.text);
    const target = session;
    const handed = await handOffTurn(deps.dispatch, caller.turns, {
      agent,
      session,
      input: message,
      chain: [],
      lineage,
      ...handOffFrom(caller, ctx, "send_agent_message"),
    });
    // Not awaited: the target may be busy (even waiting on the caller); the message is queued.
    if (!handed.dispatched)
      handed.turn.catch((error: unknown) => deps.events.report("agent_message_failed", error, target));
    return {
      status: "sent",
      agentId: session.agentId,
      sessionId: session.sessionId,
      background: isBackground(session),
    };
  };
}

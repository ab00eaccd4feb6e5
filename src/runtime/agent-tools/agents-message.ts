import { escapeSystemMessageTags } from "../../messages/system-message.js";
import { timerDelay } from "../../internal/timer-delay.js";
import { resolveSession } from "../../sessions/resolve-session.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { AgentToolDeps } from "./agent-tool-deps.js";
import type { AgentToolCall } from "./agent-tool-inputs.js";
import { handOffTurn } from "../delegation/hand-off.js";
import { ToolSuspension } from "../../internal/tool-suspension.js";
import { delegationAnswer, waitRequestId } from "../records/delegation-answer.js";
import { callerOf, reachable, handOffFrom, scopeOf } from "./agent-tool-caller.js";

/**
 * `agents_message`: asks another agent and, in `sync` mode, waits for its answer (a suspension down the chain suspends
 * the caller).
 */
export function agentsMessage(deps: Readonly<AgentToolDeps>): AgentToolCall<"agents_message"> {
  return async (args, ctx) => {
    const caller = await callerOf(deps, ctx);
    // Visibility first: nothing is resolved or created for an agent the caller may not reach.
    const target = reachable(deps, caller, args.agentId);
    const chain = [...caller.chain, caller.agent.agentId];
    if (chain.includes(target.agentId)) {
      throw new Error(
        `Refused: "${target.agentId}" is already waiting in this delegation chain (${[...chain, target.agentId].join(" → ")}); messaging it would deadlock.`,
      );
    }
    if (chain.length > deps.limits.maxDelegationDepth) {
      throw new Error(
        `Refused: delegation chains are limited to ${deps.limits.maxDelegationDepth} hops (${[...chain, target.agentId].join(" → ")}).`,
      );
    }
    const started = Date.now();
    const waitId = waitRequestId(caller.runId, ctx.toolCallId);
    const { session, created, handed } = await deps.order.admit(async () => {
      const resolved = await resolveSession(
        deps.store,
        target.agentId,
        args.session ?? "latest-or-create",
        scopeOf(caller.session),
      );
      const input = { role: "user" as const, content: escapeSystemMessageTags(args.content) };
      // Only an async message may go to another process (a sync one is waited for here).
      const handed = await handOffTurn(deps.dispatch, caller.turns, {
        agent: target,
        session: resolved.session,
        created: resolved.created,
        input,
        chain,
        lineage: caller.lineage,
        ...handOffFrom(caller, ctx, "agents_message"),
        local: args.mode !== "async",
        // Who to answer when the target suspends and ends later (after a decision).
        ...(args.mode !== "async" && {
          waiter: { sessionId: caller.session.sessionId, agentId: caller.agent.agentId, requestId: waitId },
          // The caller waits: its limits (model and tool calls, tokens, cost, wall clock) cover the target's turn.
          ...(caller.budget !== undefined && { parentBudget: caller.budget }),
        }),
      });
      return { ...resolved, handed };
    });
    const base = {
      agentId: target.agentId,
      sessionId: session.sessionId,
      sessionName: session.name ?? "",
      created,
      responseId: handed.runId,
    };
    if (!handed.dispatched && args.mode === "async") {
      // Its outcome is in the target session and on deps.events; a turn that could not even run is reported.
      handed.turn.catch((error: unknown) => deps.events.report("agent_message_failed", error, session));
    }
    if (args.mode === "async" || handed.dispatched)
      return { mode: "async" as const, status: "started" as const, ...base };
    const turn = handed.turn;
    const timeoutSeconds = args.timeout ?? 300;
    const outcome = await waitFor(turn, timeoutSeconds * 1000, ctx.signal);
    if (outcome === "timeout") {
      return {
        mode: "sync" as const,
        status: "timeout" as const,
        ...base,
        timeoutSeconds,
        message: `No answer from "${target.agentId}" within ${timeoutSeconds} s. Its run goes on; the answer will be stored in session ${session.sessionId}.`,
      };
    }
    if (outcome.status === "suspended") {
      // The target waits for a decision: so does this call (and this turn), under its own id;
      // the target's end, after the decision, answers it (see delegated-waits.ts).
      throw new ToolSuspension({
        requestId: waitId,
        reason: `Waiting for agent "${target.agentId}", which waits for a decision.`,
        sessionId: session.sessionId,
        agentId: target.agentId,
        runId: outcome.runId,
        requests: outcome.pendingApprovals ?? [],
      });
    }
    const answer = delegationAnswer(outcome, base, Date.now() - started);
    if (answer.isError) throw new Error(String(answer.value));
    return answer.value;
  };
}

/** The turn's result, or "timeout"; rejects when the caller is aborted (the turn itself goes on). */
function waitFor(turn: Promise<TurnResult>, ms: number, signal: AbortSignal): Promise<TurnResult | "timeout"> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("Aborted while waiting for the delegated agent (its run goes on)."));
    };
    // A wait no timer can hold (over 2^31-1 ms) means no time limit, never "time out at once".
    const delay = timerDelay(ms);
    const timer =
      delay === undefined
        ? undefined
        : setTimeout(() => {
            signal.removeEventListener("abort", onAbort);
            resolve("timeout");
          }, delay);
    signal.addEventListener("abort", onAbort, { once: true });
    turn.then(
      (result) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

import { z } from "zod";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import { agentVisibility } from "../agents/agent-visibility.js";
import { escapeSystemMessageTags, systemMessage } from "../messages/system-message.js";
import { timerDelay } from "../internal/timer-delay.js";
import { resolveSession } from "../sessions/resolve-session.js";
import type { SessionSummary } from "../contracts/session-store.js";
import { defineTool } from "../tools/define-tool.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import type { TurnResult } from "../contracts/agent-runtime.js";
import { isBackground, type BackgroundAttributes, type Lineage } from "./runtime-core.js";
import type { RuntimeContext } from "./runtime-context.js";
import { moveSubagent, subagentStatusOf } from "./subagent-lifecycle.js";
import { handOffTurn, type HandOffRequest } from "./hand-off.js";
import { RUNTIME_HOST } from "../internal/runtime-host.js";
import { ToolSuspension } from "../internal/tool-suspension.js";
import { delegationAnswer, waitRequestId } from "./delegation-answer.js";
import type { JsonValue } from "../contracts/json-schema.js";

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
}

/** What the runtime hands its own tools as `ctx[RUNTIME_HOST]`. */
export interface RuntimeToolHost {
  sessionId: string;
  agentId: string;
  runId: string;
  /** The turn's host context (`SendInput.context`): inherited by the turns its tools start. */
  context: JsonValue | undefined;
  /** Agents waiting on this turn through `agents_message`, outermost first. */
  chain: readonly string[];
  /** Limits shared with the root turn and everything it started in the background. */
  lineage: Lineage;
  /** Gives model calls of this turn's budget to a turn it hands to a dispatcher (they count against its `maxTotalLlmCalls`). */
  giveLlmCalls?: (count: number) => void;
}

/** The caller of a built-in tool, from its context (the runtime's `ctx[RUNTIME_HOST]`). */
async function callerOf(runtime: RuntimeContext, ctx: ToolContext): Promise<AgentToolCaller> {
  const host = (ctx as ToolContext & { [RUNTIME_HOST]?: Partial<RuntimeToolHost> })[RUNTIME_HOST];
  const agent = host?.agentId === undefined ? undefined : runtime.registry.get(host.agentId);
  const session = host?.sessionId === undefined ? undefined : await runtime.store.getSession(host.sessionId);
  if (!agent || !session || !host?.lineage || host.runId === undefined) throw new Error("This tool runs only inside an agent runtime turn.");
  return {
    agent,
    session,
    chain: host.chain ?? [],
    lineage: host.lineage,
    runId: host.runId,
    context: host.context,
    ...(host.giveLlmCalls !== undefined && { giveLlmCalls: host.giveLlmCalls }),
  };
}

/** A session of the caller's scope, or undefined (another scope's session is as unknown as a missing one). */
async function sessionInScope(runtime: RuntimeContext, caller: AgentToolCaller, sessionId: string): Promise<SessionSummary | undefined> {
  const session = await runtime.store.getSession(sessionId);
  return session !== undefined && session.scope === caller.session.scope ? session : undefined;
}

/** The lineage of a turn the caller triggers by messaging another agent: one hop further, refused past the limit. */
function nextHop(runtime: RuntimeContext, caller: AgentToolCaller): Lineage {
  const hops = caller.lineage.hops + 1;
  if (hops > runtime.maxAgentHops) {
    throw new Error(`Refused: agent-to-agent messages from one user message are limited to ${runtime.maxAgentHops} hops; this one would be hop ${hops}.`);
  }
  const { counters } = caller.lineage;
  if (counters.llmCalls >= counters.maxLlmCalls) {
    throw new Error(`Refused: the model calls budget shared by this conversation and its background agents (${counters.maxLlmCalls}) is spent.`);
  }
  return { counters, hops };
}

/**
 * The runtime's built-in agent tools (`agents_message`, `start_background_agent`,
 * `send_agent_message`, `request_permission`), made once per runtime: each call finds its caller
 * (agent, session, delegation chain) in `ctx[RUNTIME_HOST]`. They have permission class `subagent` and are
 * scoped like any tool.
 */
export function createAgentTools(runtime: RuntimeContext): Tool[] {
  return [agentsMessage(runtime), startBackgroundAgent(runtime), sendAgentMessage(runtime), requestPermission(), listBackgroundAgents(runtime), closeBackgroundAgent(runtime)];
}

function reachable(runtime: RuntimeContext, caller: AgentToolCaller, agentId: string): AgentDefinition {
  const target = runtime.registry.get(agentId);
  if (!target) throw new Error(`Unknown agent "${agentId}".`);
  const visibility = agentVisibility(caller.agent, target);
  if (!visibility.visible) throw new Error(visibility.reason);
  return target;
}

function agentsMessage(runtime: RuntimeContext): Tool {
  return defineTool({
    name: "agents_message",
    description: "Send a message to another agent and get its answer (sync), or start it and go on (async). The exchange is recorded in that agent's session.",
    permissionClass: "subagent",
    input: z.object({
      agentId: z.string().describe("The agent to message."),
      content: z.string().describe("The message, as a user message to that agent."),
      session: z.string().optional().describe('"latest", "create", "latest-or-create" (default) or a session id of that agent.'),
      mode: z.enum(["sync", "async"]).optional().describe('"sync" (default) waits for the answer; "async" returns at once.'),
      timeout: z
        .number()
        .positive()
        .optional()
        .describe("Seconds to wait in sync mode (default 300; above about 24 days = no limit). The run goes on after a timeout."),
    }),
    async execute(args, ctx) {
      const caller = await callerOf(runtime, ctx);
      // Visibility first: nothing is resolved or created for an agent the caller may not reach.
      const target = reachable(runtime, caller, args.agentId);
      const chain = [...caller.chain, caller.agent.agentId];
      if (chain.includes(target.agentId)) {
        throw new Error(
          `Refused: "${target.agentId}" is already waiting in this delegation chain (${[...chain, target.agentId].join(" → ")}); messaging it would deadlock.`,
        );
      }
      if (chain.length > runtime.maxDelegationDepth) {
        throw new Error(`Refused: delegation chains are limited to ${runtime.maxDelegationDepth} hops (${[...chain, target.agentId].join(" → ")}).`);
      }
      const started = Date.now();
      const waitId = waitRequestId(caller.runId, ctx.toolCallId);
      const { session, created, handed } = await runtime.admit(async () => {
        const resolved = await resolveSession(runtime.store, target.agentId, args.session ?? "latest-or-create", scopeOf(caller.session));
        const input = { role: "user" as const, content: escapeSystemMessageTags(args.content) };
        // Only an async message may go to another process (a sync one is waited for here).
        const handed = await handOffTurn(runtime, {
          agent: target,
          session: resolved.session,
          created: resolved.created,
          input,
          chain,
          lineage: caller.lineage,
          ...handOffFrom(caller, ctx, "agents_message"),
          local: args.mode !== "async",
          // Who to answer when the target suspends and ends later (after a decision).
          ...(args.mode !== "async" && { waiter: { sessionId: caller.session.sessionId, agentId: caller.agent.agentId, requestId: waitId } }),
        });
        return { ...resolved, handed };
      });
      const base = { agentId: target.agentId, sessionId: session.sessionId, sessionName: session.name ?? "", created, responseId: handed.runId };
      if (!handed.dispatched && args.mode === "async") {
        // Its outcome is in the target session and on runtime.events; a turn that could not even run is reported.
        handed.turn.catch((error: unknown) => runtime.report("agent_message_failed", error, session));
      }
      if (args.mode === "async" || handed.dispatched) return { mode: "async" as const, status: "started" as const, ...base };
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
    },
  });
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

function startBackgroundAgent(runtime: RuntimeContext): Tool {
  return defineTool({
    name: "start_background_agent",
    description:
      "Start a new background agent with a first message and return its session id at once. It works on its own and reports back with send_agent_message.",
    permissionClass: "subagent",
    input: z.object({
      prompt: z.string().describe("The task. Ask it to report progress and results with send_agent_message."),
      agentId: z.string().optional().describe("Which agent to start (default: your own kind)."),
      name: z.string().optional().describe("A name for the background session."),
    }),
    async execute(args, ctx) {
      const caller = await callerOf(runtime, ctx);
      const target = args.agentId === undefined || args.agentId === caller.agent.agentId ? caller.agent : reachable(runtime, caller, args.agentId);
      const lineage = nextHop(runtime, caller);
      if (lineage.counters.backgroundAgents >= lineage.counters.maxBackgroundAgents) {
        throw new Error(
          `Refused: one user message may start at most ${runtime.maxBackgroundAgents} background agents (counting those they start); none is left for this one.`,
        );
      }
      lineage.counters.backgroundAgents++;
      const attributes: BackgroundAttributes = {
        background: true,
        parentSessionId: caller.session.sessionId,
        parentAgentId: caller.agent.agentId,
        lifecycle: "created",
      };
      const session = await runtime.store.createSession({
        agentId: target.agentId,
        attributes: { ...attributes },
        ...scopeOf(caller.session),
        ...(args.name !== undefined && { name: args.name }),
      });
      runtime.publish(session, {
        type: "subagent_status",
        sessionId: session.sessionId,
        parentSessionId: caller.session.sessionId,
        from: null,
        to: "created",
        depth: 0,
        parentId: null,
      });
      const text = `${args.prompt}\n\nYou run in the background. Report progress and your final result to the agent that started you with send_agent_message.`;
      const handed = await handOffTurn(runtime, {
        agent: target,
        session,
        created: true,
        input: systemMessage(caller.agent.agentId, text),
        chain: [],
        lineage,
        ...handOffFrom(caller, ctx, "start_background_agent"),
      });
      if (!handed.dispatched) handed.turn.catch(() => undefined); // failures reach the parent as one notification
      return { status: "started", agentId: target.agentId, sessionId: session.sessionId };
    },
  });
}

function sendAgentMessage(runtime: RuntimeContext): Tool {
  return defineTool({
    name: "send_agent_message",
    description:
      "Send a message to another agent's session. Default target: the agent that started you (for a background agent), else the most recent foreground session you may see. It is delivered as a system message and the agent answers it on its own.",
    permissionClass: "subagent",
    input: z.object({
      text: z.string().describe("What to tell the agent."),
      sessionId: z.string().optional().describe("The target session (e.g. a background agent you started)."),
      agentId: z.string().optional().describe("The target agent (its most recent session)."),
    }),
    async execute(args, ctx) {
      const caller = await callerOf(runtime, ctx);
      const parentId = caller.session.attributes?.parentSessionId;
      let session: SessionSummary | undefined;
      if (args.sessionId !== undefined) {
        session = await sessionInScope(runtime, caller, args.sessionId);
        if (!session) throw new Error(`Unknown session "${args.sessionId}".`);
        const related = session.attributes?.parentSessionId === caller.session.sessionId || parentId === session.sessionId;
        if (!related && session.agentId !== caller.agent.agentId) reachable(runtime, caller, session.agentId);
      } else if (args.agentId !== undefined) {
        reachable(runtime, caller, args.agentId);
        session = (await resolveSession(runtime.store, args.agentId, "latest-or-create", scopeOf(caller.session))).session;
      } else {
        // A background agent reports to the session that started it, never to another conversation.
        if (typeof parentId === "string") session = await sessionInScope(runtime, caller, parentId);
        session ??= await runtime.foregroundSession(caller.session.scope, caller.session.sessionId, (agent) => agentVisibility(caller.agent, agent).visible);
        if (!session) throw new Error("There is no agent you may message: give sessionId or agentId.");
      }
      const agent = runtime.registry.get(session.agentId);
      if (!agent) throw new Error(`Session "${session.sessionId}" belongs to an unknown agent "${session.agentId}".`);
      const lineage = nextHop(runtime, caller);
      const message = systemMessage(caller.agent.agentId, args.text);
      const target = session;
      const handed = await handOffTurn(runtime, { agent, session, input: message, chain: [], lineage, ...handOffFrom(caller, ctx, "send_agent_message") });
      // Not awaited: the target may be busy (even waiting on the caller); the message is queued.
      if (!handed.dispatched) handed.turn.catch((error: unknown) => runtime.report("agent_message_failed", error, target));
      return { status: "sent", agentId: session.agentId, sessionId: session.sessionId, background: isBackground(session) };
    },
  });
}

/** What ties a hand-off to the tool call that makes it: its key, the caller's budget to charge, and the context it inherits. */
function handOffFrom(caller: AgentToolCaller, ctx: ToolContext, kind: string): Pick<HandOffRequest, "key" | "charge" | "context"> {
  return {
    key: [caller.session.sessionId, caller.runId, ctx.toolCallId, kind],
    ...(caller.context !== undefined && { context: caller.context }),
    ...(caller.giveLlmCalls !== undefined && { charge: caller.giveLlmCalls }),
  };
}

/** `{ scope }` of a session when it has one (spread into create and resolve calls). */
function scopeOf(session: SessionSummary): { scope?: string } {
  return session.scope === undefined ? {} : { scope: session.scope };
}

function requestPermission(): Tool {
  return defineTool({
    name: "request_permission",
    description: "Ask the user for a permission you need (e.g. to spend money or touch a shared resource). Returns the decision.",
    permissionClass: "subagent",
    requiresApproval: true,
    input: z.object({
      permission: z.string().describe("What you want to be allowed to do."),
      reason: z.string().optional().describe("Why you need it."),
    }),
    execute: ({ permission }) => ({ approved: true, permission }),
  });
}

/** Longest result text `close_background_agent` returns before it is cut. */
const MAX_MERGE_RESULT_CHARS = 20_000;

function listBackgroundAgents(runtime: RuntimeContext): Tool {
  return defineTool({
    name: "list_background_agents",
    description:
      "List the background agents you started that are not closed yet, with where each is (running, waiting_for_merge: its result is ready for close_background_agent).",
    permissionClass: "subagent",
    input: z.object({}),
    async execute(_args, ctx) {
      const caller = await callerOf(runtime, ctx);
      const sessions = await runtime.store.listSessions({ scope: caller.session.scope ?? null });
      return sessions.flatMap((s) => {
        const status = subagentStatusOf(s);
        if (s.attributes?.parentSessionId !== caller.session.sessionId || status === undefined || status === "closed") return [];
        return [{ sessionId: s.sessionId, agentId: s.agentId, name: s.name ?? "", status }];
      });
    },
  });
}

function closeBackgroundAgent(runtime: RuntimeContext): Tool {
  return defineTool({
    name: "close_background_agent",
    description:
      "Merge and close a background agent you started once its work is done (status waiting_for_merge): returns its final answer and whether it completed or failed. A running agent cannot be closed yet.",
    permissionClass: "subagent",
    input: z.object({ sessionId: z.string().describe("The background agent's session id.") }),
    async execute(args, ctx) {
      const caller = await callerOf(runtime, ctx);
      const session = await sessionInScope(runtime, caller, args.sessionId);
      if (!session || session.attributes?.parentSessionId !== caller.session.sessionId || subagentStatusOf(session) === undefined) {
        throw new Error(`"${args.sessionId}" is not a background agent you started.`);
      }
      const status = subagentStatusOf(session);
      if (status !== "waiting_for_merge") throw new Error(`Background agent ${args.sessionId} is ${status}; only one waiting_for_merge can be closed.`);
      const records = await runtime.store.load(session.sessionId, { frame: null });
      let result = "";
      for (const record of records) {
        if (record.kind === "message" && record.message.role === "assistant") {
          const text = record.message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
          if (text !== "") result = text;
        }
      }
      const outcome = session.attributes?.lastTurnStatus === "complete" ? "completed" : "failed";
      const merged = await moveSubagent(runtime.store, (s, e) => runtime.publish(s, e), session.sessionId, outcome);
      if (!merged) throw new Error(`Background agent ${args.sessionId} changed meanwhile; list it again.`);
      await moveSubagent(runtime.store, (s, e) => runtime.publish(s, e), session.sessionId, "closed");
      const truncated = result.length > MAX_MERGE_RESULT_CHARS;
      return {
        sessionId: session.sessionId,
        agentId: session.agentId,
        status: outcome,
        result: truncated ? result.slice(0, MAX_MERGE_RESULT_CHARS) : result,
        truncated,
      };
    },
  });
}

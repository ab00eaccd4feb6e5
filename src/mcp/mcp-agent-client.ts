import type { AgentRuntime, SendInput } from "../contracts/agent-runtime.js";
import { SessionNotFoundError, SessionOwnershipError } from "../errors/errors.js";

/** The caps on what one MCP client (one MCP session) may hold. */
export interface McpClientLimits {
  /** Agent sessions one client may create. */
  maxSessionsPerClient: number;
  /** Turns one client may have running at once. */
  maxTurnsPerClient: number;
}

/** One MCP client's view of the runtime: its scope, its conversations, its running turns. */
export interface McpAgentClient {
  readonly scope: string | undefined;
  /** Sends one message, choosing the agent session as `session` says; see {@link createMcpAgentClient}. */
  send(input: {
    agentId: string;
    message: string;
    session: string | undefined;
    signal: AbortSignal;
  }): Promise<Awaited<ReturnType<AgentRuntime["send"]>>>;
}

/** A refusal the MCP client sees as an error result (its message is the whole answer). */
export class McpClientRefusal extends Error {
  override name = "McpClientRefusal";
}

const unknownSession = (id: string) => new McpClientRefusal(`Unknown session "${id.slice(0, 200)}".`);

/**
 * An MCP client's access to the runtime. Conversations never cross clients: without `session`
 * (or `"latest-or-create"`) a client continues its own conversation with that agent, or starts
 * one; `"latest"` continues it or fails; `"create"` starts a new one; a session id is taken only
 * when this client created it, or when the client is scoped (then the runtime's scope check
 * decides). An id of another client, of another scope, of an agent that is not served, and one
 * that does not exist all get the same answer: `Unknown session "<id>".`
 */
export function createMcpAgentClient(
  runtime: AgentRuntime,
  scope: string | undefined,
  limits: McpClientLimits,
): McpAgentClient {
  const current = new Map<string, string>();
  const owned = new Set<string>();
  let running = 0;

  const selector = (agentId: string, session: string | undefined): string => {
    if (session === undefined || session === "latest-or-create") return current.get(agentId) ?? "create";
    if (session === "latest") {
      const latest = current.get(agentId);
      if (latest === undefined)
        throw new McpClientRefusal(`There is no conversation with "${agentId}" in this MCP session yet.`);
      return latest;
    }
    if (session === "create") return "create";
    if (!owned.has(session) && scope === undefined) throw unknownSession(session);
    return session;
  };

  return {
    scope,
    async send({ agentId, message, session, signal }) {
      if (running >= limits.maxTurnsPerClient)
        throw new McpClientRefusal(
          `This MCP client already has ${running} turns running (at most ${limits.maxTurnsPerClient}): wait for one to finish.`,
        );
      const chosen = selector(agentId, session);
      if (chosen === "create" && owned.size >= limits.maxSessionsPerClient)
        throw new McpClientRefusal(
          `This MCP client already started ${owned.size} sessions (at most ${limits.maxSessionsPerClient}): continue one of them.`,
        );
      const input: SendInput = { agentId, content: message, signal, session: chosen };
      if (scope !== undefined) input.scope = scope;
      running++;
      try {
        const result = await runtime.send(input);
        owned.add(result.sessionId);
        current.set(agentId, result.sessionId);
        return result;
      } catch (error) {
        // Another agent's session (a hidden one too) must look like one that does not exist.
        if (chosen !== "create" && (SessionNotFoundError.isInstance(error) || SessionOwnershipError.isInstance(error)))
          throw unknownSession(chosen);
        throw error;
      } finally {
        running--;
      }
    },
  };
}

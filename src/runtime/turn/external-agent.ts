import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { Message, UserMessage } from "../../contracts/message.js";
import type { ModelEvent, Provider } from "../../contracts/provider.js";
import { ProviderError } from "../../errors/errors.js";

/**
 * What an external agent's handler gets for one turn: the new message and the conversation so far
 * (the session's context, the new message last), and who is asking.
 */
export interface ExternalAgentRequest {
  agentId: string;
  /** The session of the turn. */
  sessionId: string | undefined;
  /** The turn's run id. */
  runId: string | undefined;
  /** The message this turn answers (the last of `messages`); a delegated call's content, or a system message. */
  input: UserMessage | undefined;
  /** The session's context, as a chat agent's model would see it (read-only: copy before changing it). */
  messages: readonly Message[];
  /** The system prompt a chat agent would get (the agent's prompt and sections), for handlers that forward it. */
  system: string;
  /** Aborted when the turn is stopped (the runtime closes, the caller aborts, the time budget ends). */
  signal: AbortSignal;
}

/** An external agent's answer: its text (a string, or `{ text }`). */
export type ExternalAgentReply = string | { text: string };

/**
 * Answers the turns of an agent with `type: "external"`: the host's own code or a service it calls
 * (an agent of another system, a queue a person works on, ...). Its answer becomes the turn's
 * assistant message, stored and delivered like a model's; a thrown error (or a reply that is not
 * text) ends the turn with status `"error"` naming it. It must honour `signal`.
 */
export type ExternalAgentHandler = (request: ExternalAgentRequest) => ExternalAgentReply | Promise<ExternalAgentReply>;

/** Longest text an external agent's reply may have; longer replies are cut. */
export const MAX_EXTERNAL_REPLY_CHARS = 1_000_000;

/**
 * The provider that serves an external agent's turns through its handler (not public): one
 * `text_delta` with the reply, then `finish`. It offers no tools (the handler answers in text).
 */
export function externalAgentProvider(agentId: string, handler: ExternalAgentHandler): Provider {
  const id = `external:${agentId}`;
  return {
    id,
    async *stream(request, { signal }): AsyncIterable<ModelEvent> {
      const last = request.messages.at(-1);
      let reply: ExternalAgentReply;
      try {
        reply = await handler({
          agentId,
          sessionId: request.caller?.sessionId,
          runId: request.caller?.runId,
          input: last?.role === "user" ? last : undefined,
          messages: request.messages,
          system: request.system,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ProviderError(
          `External agent "${agentId}" failed: ${error instanceof Error ? error.message : String(error)}`,
          {
            provider: id,
            cause: error,
          },
        );
      }
      const text = typeof reply === "string" ? reply : typeof reply?.text === "string" ? reply.text : undefined;
      if (text === undefined)
        throw new ProviderError(`External agent "${agentId}" answered without text.`, { provider: id });
      if (text !== "") yield { type: "text_delta", text: text.slice(0, MAX_EXTERNAL_REPLY_CHARS) };
      yield { type: "finish", reason: "stop" };
    },
  };
}

/**
 * The problems of `external` (`createAgentRuntime` option): a key naming no agent, or one that is
 * not `type: "external"`.
 */
export function externalHandlerProblems(
  registry: AgentRegistry,
  external: Record<string, unknown> | undefined,
): string[] {
  if (external === undefined) return [];
  if (typeof external !== "object" || external === null) return ["external must be an object of handlers by agent id"];
  const problems: string[] = [];
  for (const [agentId, handler] of Object.entries(external)) {
    const agent = registry.get(agentId);
    if (typeof handler !== "function") problems.push(`external["${agentId}"] must be a function`);
    else if (!agent) problems.push(`external["${agentId}"]: no such agent`);
    else if (agent.type !== "external")
      problems.push(`external["${agentId}"]: agent "${agentId}" is not type "external"`);
  }
  return problems;
}

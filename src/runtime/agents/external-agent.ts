import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { ModelEvent, Provider } from "../../contracts/provider.js";
import { ProviderError } from "../../errors/errors.js";
import type { ExternalAgentHandler, ExternalAgentReply } from "../records/external-agent-handler.js";

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

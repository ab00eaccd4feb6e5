import type { Message, UserMessage } from "../../contracts/message.js";

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

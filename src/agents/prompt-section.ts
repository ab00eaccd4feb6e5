import type { AgentDefinition } from "../contracts/agent-definition.js";
import type { ChatContext } from "../contracts/tool-policy.js";

/**
 * A host-supplied block of the system prompt (artifacts, open panels, message context, ...),
 * rendered as `## {title}` followed by `content`. A section whose `content` is blank is left out;
 * a blank `title` renders the content without a heading.
 */
export interface PromptSection {
  /** Heading text, without `#` marks, e.g. `"Available artifact items"`. */
  title: string;
  /** Body text (Markdown). Leading blank lines and trailing whitespace are trimmed. */
  content: string;
}

/** What a {@link PromptSectionSource} is called with: the run the prompt is built for. */
export interface PromptSectionContext {
  /** The agent of the run; absent when the prompt is built without one. */
  agent?: AgentDefinition;
  /** The chat context of the run (e.g. `{ kind: "editor", ... }`), when there is one. */
  chatContext?: ChatContext;
  /** The session the run belongs to, when there is one. */
  sessionId?: string;
}

/**
 * A prompt section computed per run. Called once per prompt build, in order with the other
 * sections; return `undefined` to leave the section out.
 *
 * Must be synchronous, must not throw (an error propagates out of the prompt build), and should
 * be a pure function of its context and of host state that changes rarely: the same inputs must
 * give the same section, so that the provider's prompt cache keeps hitting (no timestamps).
 */
export type PromptSectionSource = (context: PromptSectionContext) => PromptSection | undefined;

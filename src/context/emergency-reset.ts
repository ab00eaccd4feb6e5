import { InvalidArgumentError } from "../errors/errors.js";
import type { Message, UserPart } from "../contracts/message.js";
import { unwrapSystemMessage } from "../messages/system-message.js";
import { estimateTokens } from "./estimate-tokens.js";

/**
 * Estimated context size at which an agent's context is reset (the
 * runtime's `emergencyContextLimit`, default 200000). Above the loop's pruning budget
 * (`maxHistoryTokens`, 128,000) on purpose: pruning handles ordinary growth, the reset is for a
 * context that pruning could not bring back (one turn bigger than the budget).
 */
export const EMERGENCY_CONTEXT_LIMIT = 200_000;

/** Upper bound on the length of {@link summarizeForReset}'s note, in characters. */
export const RESET_SUMMARY_MAX_CHARS = 2_000;

/** Options of {@link needsEmergencyReset}. */
export interface NeedsEmergencyResetOptions {
  /** Reset when the estimate reaches this many tokens. @default 200_000 (EMERGENCY_CONTEXT_LIMIT) */
  limit?: number;
  /** The system prompt, counted with the messages. @default undefined (nothing counted) */
  system?: string;
}

/** The verdict of {@link needsEmergencyReset}. Plain JSON. */
export interface NeedsEmergencyResetResult {
  /** `estimatedTokens >= limit`. */
  needed: boolean;
  /** `estimateTokens(messages, system)`. */
  estimatedTokens: number;
  /** The limit that applied. */
  limit: number;
}

/**
 * Whether a context has grown past the emergency limit (reset when the estimate is
 * `>=` the limit, keep it below). Pure; sizes come from `estimateTokens`.
 *
 * @throws InvalidArgumentError when `limit` is not a positive number.
 */
export function needsEmergencyReset(
  messages: readonly Message[],
  options: NeedsEmergencyResetOptions = {},
): NeedsEmergencyResetResult {
  return emergencyVerdict(estimateTokens(messages, options.system), options.limit);
}

/** {@link needsEmergencyReset}'s verdict for an estimate already made (the runtime keeps a running sum). */
export function emergencyVerdict(
  estimatedTokens: number,
  limit: number = EMERGENCY_CONTEXT_LIMIT,
): NeedsEmergencyResetResult {
  if (typeof limit !== "number" || Number.isNaN(limit) || limit <= 0) {
    throw new InvalidArgumentError(`needsEmergencyReset: limit must be a positive number (got ${String(limit)})`);
  }
  return { needed: estimatedTokens >= limit, estimatedTokens, limit };
}

const EXCERPT_CHARS = 200;
const RECENT_REQUESTS = 3;
const MAX_TOOL_NAMES = 12;

/**
 * A short note about a context that is being reset, built without a model: the fallback summary
 * for the reset marker (`ResetRecord.summary`), meant to open the fresh context so the agent
 * knows what came before. A host with a model to spare can write a better one.
 *
 * Holds the message counts by role, the tools used (first-use order, with call counts), the
 * first user request, the last few user requests and the last assistant answer, each collapsed
 * to one line and cut to 200 characters. System messages from other agents are shown unwrapped,
 * marked with their origin; images as `[image]`.
 *
 * Deterministic (same messages, same string) and never longer than `RESET_SUMMARY_MAX_CHARS`.
 */
export function summarizeForReset(messages: readonly Message[]): string {
  return modelFreeNote(
    messages,
    "[Context reset: the earlier conversation grew too large and was cleared. Automatic summary, not written by the model.]",
  );
}

/**
 * The note of {@link summarizeForReset} under another first line (`heading`): what a compaction
 * whose summary could not be written keeps of the turns it replaces. Not exported from the package.
 */
export function modelFreeNote(messages: readonly Message[], heading: string): string {
  const requests: string[] = [];
  const answers: string[] = [];
  const tools = new Map<string, number>();
  const counts = { user: 0, assistant: 0, tool: 0 };
  for (const message of messages) {
    counts[message.role]++;
    if (message.role === "user") requests.push(userText(message));
    else if (message.role === "assistant") {
      const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      if (text.trim() !== "") answers.push(text);
      for (const part of message.content)
        if (part.type === "tool_call") tools.set(part.name, (tools.get(part.name) ?? 0) + 1);
    }
  }

  const lines = [
    heading,
    `Messages: ${messages.length} (${counts.user} user, ${counts.assistant} assistant, ${counts.tool} tool).`,
  ];
  if (tools.size > 0) {
    const names = [...tools].slice(0, MAX_TOOL_NAMES).map(([name, calls]) => `${excerpt(name, 40)} x${calls}`);
    const more = tools.size > MAX_TOOL_NAMES ? `, and ${tools.size - MAX_TOOL_NAMES} more` : "";
    lines.push(`Tools used: ${names.join(", ")}${more}.`);
  }
  if (requests.length > 0) lines.push(`First request: ${quote(requests[0]!)}`);
  const recent = requests.slice(Math.max(1, requests.length - RECENT_REQUESTS));
  if (recent.length > 0) lines.push("Latest requests:", ...recent.map((text) => `- ${quote(text)}`));
  if (answers.length > 0) lines.push(`Last answer: ${quote(answers[answers.length - 1]!)}`);
  return excerpt(lines.join("\n"), RESET_SUMMARY_MAX_CHARS, false);
}

/** A user message as one string: agent system messages unwrapped and marked, images as `[image]`. */
function userText(message: Extract<Message, { role: "user" }>): string {
  const text = typeof message.content === "string" ? message.content : message.content.map(userPartText).join(" ");
  const wrapped = unwrapSystemMessage(text);
  return wrapped ? `[from agent ${wrapped.origin}] ${wrapped.text}` : text;
}

/** A user message part as a note's text: its text, or a placeholder for an image or a file. */
export function userPartText(part: UserPart): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "image":
      return "[image]";
    case "file":
      return `[file${part.filename === undefined ? "" : ` ${part.filename}`}]`;
  }
}

function quote(text: string): string {
  return `"${excerpt(text, EXCERPT_CHARS)}"`;
}

/** `text` cut to `max` characters with an ellipsis; whitespace collapsed to single spaces when `collapse`. */
function excerpt(text: string, max: number, collapse = true): string {
  const flat = collapse ? text.replace(/\s+/g, " ").trim() : text;
  if (flat.length <= max) return flat;
  let cut = flat.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1); // never split a surrogate pair
  return `${cut}…`;
}

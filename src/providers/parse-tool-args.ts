import { isJsonTextTooDeep } from "../internal/outside-json.js";

/**
 * A complete tool call's argument text as a value: `""` (no-parameter tools; OpenAI, Bedrock,
 * Ollama and Anthropic all send it) becomes `{}`, valid JSON is parsed, and invalid JSON is passed
 * through as the raw string. So is JSON nested deeper than 64 levels (`MAX_JSON_DEPTH`): it is
 * never parsed here, and the loop refuses the call, telling the model why.
 *
 * Why the raw string: the loop validates `args` against the tool's schema, so a string fails
 * validation with a message that shows the model exactly what it sent, and the model can retry.
 * Dropping the call or guessing a repair would hide the mistake.
 */
export function parseToolArgs(text: string): unknown {
  if (text.trim() === "") return {};
  if (isJsonTextTooDeep(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

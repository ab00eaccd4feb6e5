import type { ModelRequest, ToolChoice } from "../contracts/provider.js";

/**
 * Copies what every wire body maps alike onto `request`: the output token limit (`maxOutputTokens`,
 * when it is a number), the temperature, the tool choice (when the wire format's `toolChoice` read
 * its `tool_choice` as one of the forms an adapter sends), and every other top-level field outside
 * `known` as `providerOptions` (so a function script sees the options the adapter sent; a
 * `tool_choice` in another form, set through `providerOptions`, stays there).
 */
export function withBodyOptions(
  request: ModelRequest,
  body: any,
  known: ReadonlySet<string>,
  maxOutputTokens: unknown,
  toolChoice: (wire: unknown) => ToolChoice | undefined,
): ModelRequest {
  if (typeof maxOutputTokens === "number") request.maxOutputTokens = maxOutputTokens;
  if (typeof body?.temperature === "number") request.temperature = body.temperature;
  const choice = toolChoice(body?.tool_choice);
  if (choice !== undefined) request.toolChoice = choice;
  const extra = Object.fromEntries(
    Object.entries(body ?? {}).filter(([key]) => !known.has(key) && !(key === "tool_choice" && choice !== undefined)),
  );
  if (Object.keys(extra).length > 0) request.providerOptions = extra;
  return request;
}

/** The text of OpenAI-style content: a string as it is, or the `text` of each part of a list, joined. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part: any) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/** True when `value` is a plain object whose own keys are exactly `keys`. */
export function hasExactly(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

/** `"auto"`, `"required"` or `"none"` as a tool choice (OpenAI's string forms). */
export function stringToolChoice(wire: unknown): ToolChoice | undefined {
  return wire === "auto" || wire === "required" || wire === "none" ? wire : undefined;
}

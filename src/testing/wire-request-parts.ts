import type { ModelRequest } from "../contracts/provider.js";

/**
 * Copies what every wire body maps alike onto `request`: the output token limit (`maxOutputTokens`,
 * when it is a number), the temperature, and every top-level field outside `known` as
 * `providerOptions` (so a function script sees the options the adapter sent).
 */
export function withBodyOptions(
  request: ModelRequest,
  body: any,
  known: ReadonlySet<string>,
  maxOutputTokens: unknown,
): ModelRequest {
  if (typeof maxOutputTokens === "number") request.maxOutputTokens = maxOutputTokens;
  if (typeof body?.temperature === "number") request.temperature = body.temperature;
  const extra = Object.fromEntries(Object.entries(body ?? {}).filter(([key]) => !known.has(key)));
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

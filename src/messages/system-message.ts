/**
 * Wraps a system message from another agent (seed 003): `<system_message origin="ID">text</system_message>`.
 * The origin is attribute-escaped; the text is kept verbatim.
 */
export function wrapSystemMessage(origin: string, text: string): string {
  const escaped = origin.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return `<system_message origin="${escaped}">${text}</system_message>`;
}

/** The origin and text of a wrapped system message, or undefined when `content` is not one. */
export function unwrapSystemMessage(content: string): { origin: string; text: string } | undefined {
  const match = /^<system_message origin="([^"]*)">([\s\S]*)<\/system_message>$/.exec(content);
  if (!match) return undefined;
  const origin = match[1]!.replace(/&lt;/g, "<").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
  return { origin, text: match[2]! };
}

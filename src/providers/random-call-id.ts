/** A short random id for a tool call a server sent without one. */
export function randomCallId(): string {
  return `call_${globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
}

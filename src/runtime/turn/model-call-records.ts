import { sha256Hex } from "../../internal/sha256.js";
export type { ModelCallRecord, PromptRecord } from "../../contracts/session-store.js";

/** Sessions whose stored prompt digests a runtime remembers (the oldest are forgotten first). */
const REMEMBERED_SESSIONS = 1024;

/**
 * The prompt digests a runtime knows are stored, by session (keyed with the session's `createdAt`,
 * so a session deleted and created again under its id starts afresh). Only saves sending a prompt
 * record the store has: the record's id is its digest, so sending it again stores nothing anyway.
 */
export class StoredPrompts {
  readonly #sessions = new Map<string, Set<string>>();

  /** The set for a session (created empty), marked as the most recently used. */
  of(sessionId: string, createdAt: string): Set<string> {
    const key = `${createdAt}\n${sessionId}`;
    const known = this.#sessions.get(key) ?? new Set<string>();
    this.#sessions.delete(key);
    this.#sessions.set(key, known);
    if (this.#sessions.size > REMEMBERED_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    return known;
  }
}

/** Distinct prompts and tool lists whose digest a runtime remembers, of each. */
const REMEMBERED_DIGESTS = 512;

/**
 * Digests of system prompts and tool lists, computed once per distinct content per runtime (SHA-256
 * in JavaScript is the costly part of recording a model call): a turn looks a prompt up by its
 * text and a tool list by its JSON, both native-speed map lookups.
 */
export class PromptDigests {
  readonly #system = new Map<string, string>();
  readonly #tools = new Map<string, string>();

  /** The digest of a system prompt (`s-<sha256>`). */
  system(text: string): string {
    return remembered(this.#system, text, () => `s-${sha256Hex(new TextEncoder().encode(text))}`);
  }

  /** The digest of a tool list given as its JSON (`t-<sha256>`). */
  tools(json: string): string {
    return remembered(this.#tools, json, () => `t-${sha256Hex(new TextEncoder().encode(json))}`);
  }
}

function remembered(map: Map<string, string>, key: string, compute: () => string): string {
  let value = map.get(key);
  if (value === undefined) {
    value = compute();
    map.set(key, value);
    if (map.size > REMEMBERED_DIGESTS) map.delete(map.keys().next().value!);
  }
  return value;
}

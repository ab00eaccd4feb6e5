import { equalsPlainJson } from "../../internal/plain-json.js";
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

/** Tool lists a runtime compares a turn's list with before serializing it. */
const RECENT_TOOL_LISTS = 16;

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

  /** The recent tool lists as parsed copies, with their digests (most recent first). */
  #recentTools: { plain: unknown; digest: string }[] = [];

  /** The digest of a tool list given as its JSON (`t-<sha256>`). */
  tools(json: string): string {
    return remembered(this.#tools, json, () => `t-${sha256Hex(new TextEncoder().encode(json))}`);
  }

  /**
   * The digest of a tool list (`tools(JSON.stringify(list))`): a list equal to a recent one,
   * compared as plain data, gets its digest without serializing it (a turn's list is a new array of
   * the same few KB of schemas every turn).
   */
  toolList(list: unknown): string {
    for (const recent of this.#recentTools) if (equalsPlainJson(list, recent.plain)) return recent.digest;
    const json = JSON.stringify(list);
    const digest = this.tools(json);
    this.#recentTools = [
      { plain: JSON.parse(json) as unknown, digest },
      ...this.#recentTools.slice(0, RECENT_TOOL_LISTS - 1),
    ];
    return digest;
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

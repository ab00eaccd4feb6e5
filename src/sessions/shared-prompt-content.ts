import { InvalidArgumentError } from "../errors/errors.js";
import type { HistoryRecord } from "../contracts/session-store.js";
import { equalsPlainJson, toPlainJson } from "../internal/plain-json.js";

/** Distinct tool lists a store keeps one parsed copy of (the most recently stored first). */
const REMEMBERED_TOOL_LISTS = 16;

/**
 * The stored form of records for an in-memory store, with the tool lists of `prompt` records
 * shared: every session of an agent stores the same tool list (a few KB of JSON Schema), so one
 * parsed copy of each distinct list serves them all. A list equal to a remembered one (compared as
 * plain data, without serializing it) costs neither a JSON round trip nor memory per session.
 * Everything else is a `toPlainJson` copy. Shared values are never mutated by the store, and every
 * read copies them out.
 */
export class SharedPromptContent {
  #tools: unknown[] = [];

  /** `record` as the store keeps it (JSON semantics, `InvalidArgumentError` naming `what` for non-JSON). */
  stored(record: HistoryRecord, what: string): HistoryRecord {
    if (record.kind !== "prompt" || record.tools === undefined) return toPlainJson(record, what);
    const { tools, ...rest } = record;
    const kept = toPlainJson(rest, what);
    const shared = this.#shared(tools, what);
    return shared === undefined ? kept : { ...kept, tools: shared as typeof tools };
  }

  /** One parsed copy of `tools`, the remembered one when equal; `undefined` when JSON would drop it. */
  #shared(tools: unknown, what: string): unknown {
    const known = this.#tools.find((list) => equalsPlainJson(tools, list));
    if (known !== undefined) return known;
    let json: string | undefined;
    try {
      json = JSON.stringify(tools);
    } catch (error) {
      throw new InvalidArgumentError(`${what}: must be plain JSON data`, { cause: error });
    }
    if (json === undefined) return undefined;
    const parsed: unknown = JSON.parse(json);
    this.#tools = [parsed, ...this.#tools.slice(0, REMEMBERED_TOOL_LISTS - 1)];
    return parsed;
  }
}

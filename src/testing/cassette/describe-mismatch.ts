import type { ModelRequest, ModelTool } from "../../contracts/provider.js";
import { canonicalJson } from "./canonical-json.js";

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** A value for a message, cut short. */
function show(value: unknown): string {
  const text = value === undefined ? "(none)" : canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Where two JSON values first differ: a path like `content[0].result.status` and both sides. */
function firstDifference(recorded: unknown, now: unknown, path = ""): string {
  if (Array.isArray(recorded) && Array.isArray(now)) {
    for (let i = 0; i < Math.max(recorded.length, now.length); i++) {
      if (!same(recorded[i], now[i])) return firstDifference(recorded[i], now[i], `${path}[${i}]`);
    }
  } else if (
    typeof recorded === "object" &&
    recorded !== null &&
    typeof now === "object" &&
    now !== null &&
    !Array.isArray(recorded) &&
    !Array.isArray(now)
  ) {
    const a = recorded as Record<string, unknown>;
    const b = now as Record<string, unknown>;
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (!same(a[key], b[key])) return firstDifference(a[key], b[key], path === "" ? key : `${path}.${key}`);
    }
  }
  return `${path === "" ? "value" : path}: ${show(recorded)} → ${show(now)}`;
}

/** Where two texts first differ, with a little context on each side. */
function textDifference(recorded: string, now: string): string {
  let i = 0;
  while (i < recorded.length && i < now.length && recorded[i] === now[i]) i++;
  const cut = (text: string) =>
    JSON.stringify((i > 20 ? "…" : "") + text.slice(Math.max(0, i - 20), i + 40) + (text.length > i + 40 ? "…" : ""));
  return `differs at character ${i}: ${cut(recorded)} → ${cut(now)}`;
}

function toolDifferences(recorded: ModelTool[], now: ModelTool[]): string[] {
  const before = new Map(recorded.map((tool) => [tool.name, tool]));
  const after = new Map(now.map((tool) => [tool.name, tool]));
  const out: string[] = [];
  for (const name of after.keys()) if (!before.has(name)) out.push(`tool "${name}" is new`);
  for (const name of before.keys()) if (!after.has(name)) out.push(`tool "${name}" is gone`);
  for (const [name, tool] of after) {
    const old = before.get(name);
    if (!old) continue;
    if (old.description !== tool.description)
      out.push(`tool "${name}": description ${textDifference(old.description, tool.description)}`);
    if (!same(old.inputSchema, tool.inputSchema))
      out.push(`tool "${name}": input schema ${firstDifference(old.inputSchema, tool.inputSchema)}`);
  }
  if (out.length === 0 && !same(recorded, now))
    out.push(`tools: order changed (${now.map((tool) => tool.name).join(", ")})`);
  return out;
}

function messageDifferences(recorded: ModelRequest["messages"], now: ModelRequest["messages"]): string[] {
  for (let i = 0; i < Math.min(recorded.length, now.length); i++) {
    const [a, b] = [recorded[i]!, now[i]!];
    if (same(a, b)) continue;
    if (a.role !== b.role) return [`message ${i}: was a ${a.role} message, now a ${b.role} message`];
    return [`message ${i} (${b.role}): ${firstDifference(a.content, b.content, "content")}`];
  }
  if (recorded.length === now.length) return [];
  const [longer, word] = now.length > recorded.length ? [now, "new"] : [recorded, "no longer sent"];
  const first = Math.min(recorded.length, now.length);
  return [
    `messages: ${recorded.length} recorded, ${now.length} now (message ${first} (${longer[first]!.role}) is ${word})`,
  ];
}

/** What differs between a recorded request and a new one, one line per difference (recorded → now). */
export function requestDifferences(recorded: ModelRequest, now: ModelRequest): string[] {
  const out: string[] = [];
  if (recorded.model !== now.model) out.push(`model: ${show(recorded.model)} → ${show(now.model)}`);
  if (recorded.system !== now.system) out.push(`system prompt ${textDifference(recorded.system, now.system)}`);
  out.push(...toolDifferences(recorded.tools, now.tools));
  out.push(...messageDifferences(recorded.messages, now.messages));
  for (const field of ["maxOutputTokens", "temperature", "providerOptions", "toolChoice"] as const) {
    if (!same(recorded[field], now[field])) out.push(firstDifference(recorded[field], now[field], field));
  }
  return out;
}

/** The messages two requests share from the start. */
function commonPrefix(a: ModelRequest["messages"], b: ModelRequest["messages"]): number {
  let i = 0;
  while (i < a.length && i < b.length && same(a[i], b[i])) i++;
  return i;
}

/**
 * Of the unused recordings (indexes into `recorded`), the one `now` most likely replaces: the
 * same system prompt (the same agent and level) first, then the most messages in common, then
 * the same model and tools, then the earliest.
 */
export function closestRecording(
  now: ModelRequest,
  recorded: readonly ModelRequest[],
  unused: readonly number[],
): number | undefined {
  let best: number | undefined;
  let bestScore = -1;
  for (const index of unused) {
    const candidate = recorded[index]!;
    const score =
      (candidate.system === now.system ? 1e9 : 0) +
      commonPrefix(candidate.messages, now.messages) * 4 +
      (candidate.model === now.model ? 2 : 0) +
      (same(candidate.tools, now.tools) ? 1 : 0);
    if (score > bestScore) [best, bestScore] = [index, score];
  }
  return best;
}

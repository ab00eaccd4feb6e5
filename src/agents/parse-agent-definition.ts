import type { ConfigProblem } from "../errors/errors.js";
import { copyPlainJson } from "../internal/plain-json.js";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import { agentDefinitionZodSchema, allowedKeys } from "./agent-schema.js";

/** What {@link parseAgentDefinition} returns: the normalised definition, or every problem found. */
export type ParseAgentDefinitionResult =
  { success: true; definition: AgentDefinition } | { success: false; problems: ConfigProblem[] };

/** Options of {@link parseAgentDefinition}. */
export interface ParseAgentDefinitionOptions {
  /** Prepended to every problem path, e.g. `"agents[2]"`. @default "" (paths start at the field) */
  path?: string;
}

/** The parts of a zod issue this file reads; the same in zod 3.25 and zod 4. */
interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: readonly string[];
  expected?: unknown;
  values?: readonly unknown[];
  options?: readonly unknown[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `agents[1].toolAllowlist[0]` style: numbers in brackets, names after dots, odd keys quoted. */
function formatPath(prefix: string, segments: readonly PropertyKey[]): string {
  let path = prefix;
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (typeof segment === "string" && IDENTIFIER.test(segment)) path += path ? `.${segment}` : segment;
    else path += `[${JSON.stringify(String(segment))}]`;
  }
  return path;
}

function valueAt(input: unknown, segments: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let value = input;
  for (const segment of segments) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, segment))
      return { found: false, value: undefined };
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return { found: true, value };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    const json = JSON.stringify(value);
    return `${typeof value} ${json.length > 40 ? `${json.slice(0, 39)}…` : json}`;
  }
  return typeof value === "object" ? "an object" : typeof value;
}

const squash = (key: string): string => key.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The allowed key `key` is most likely a typo of: same letters ignoring case and separators, else at most 2 edits away.
 */
function nearestKey(key: string, allowed: readonly string[]): string | undefined {
  const exact = allowed.find((candidate) => squash(candidate) === squash(key));
  if (exact !== undefined || key.length < 4) return exact;
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const d = distance(squash(candidate), squash(key));
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function unknownKeyProblems(issue: IssueLike, prefix: string): ConfigProblem[] {
  const parent = issue.path[issue.path.length - 1];
  const allowed = allowedKeys(parent === "chat" || parent === "budget" ? parent : "agent");
  return (issue.keys ?? []).map((key) => {
    const near = nearestKey(key, allowed);
    return {
      path: formatPath(prefix, [...issue.path, key]),
      message: `unknown key${near ? ` (did you mean "${near}"?)` : ""}; allowed keys: ${allowed.join(", ")}`,
    };
  });
}

function toProblems(issue: IssueLike, input: unknown, prefix: string): ConfigProblem[] {
  if (issue.code === "unrecognized_keys") return unknownKeyProblems(issue, prefix);
  const path = formatPath(prefix, issue.path);
  if (issue.code === "invalid_type") {
    const { found, value } = valueAt(input, issue.path);
    return [
      {
        path,
        message:
          found && value !== undefined ? `expected ${String(issue.expected)}, got ${describe(value)}` : "is required",
      },
    ];
  }
  // zod 4 reports a bad enum value as "invalid_value" with `values`, zod 3 as "invalid_enum_value" with `options`.
  const choices = issue.values ?? issue.options;
  if ((issue.code === "invalid_value" || issue.code === "invalid_enum_value") && choices) {
    const { value } = valueAt(input, issue.path);
    return [
      { path, message: `expected one of ${choices.map((c) => JSON.stringify(c)).join(", ")}, got ${describe(value)}` },
    ];
  }
  // The schema's own messages say what is wrong; add what was found, as zod 3 cannot put it in.
  const { found, value } = valueAt(input, issue.path);
  return [
    { path, message: found && typeof value !== "object" ? `${issue.message}, got ${describe(value)}` : issue.message },
  ];
}

/** A shallow copy without `null` (and `undefined`) values; arrays are copied. */
function withoutNulls<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], null> } {
  const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
  return Object.fromEntries(entries.map(([k, v]) => [k, Array.isArray(v) ? [...v] : v])) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}

/**
 * Validates one agent definition as written in configuration (`agentDefinitionSchema`) and
 * normalises it: every `null` (top level, `chat`, `budget`) becomes an absent field, so
 * `toolAllowlist: null` reads back as `toolAllowlist` unset, and the result shares no object or
 * array with `input`. Never throws: problems come back with paths relative to `options.path`,
 * unknown keys as one problem each (naming the allowed keys).
 */
export function parseAgentDefinition(
  input: unknown,
  options: ParseAgentDefinitionOptions = {},
): ParseAgentDefinitionResult {
  const result = agentDefinitionZodSchema().safeParse(input);
  if (!result.success) {
    const issues: readonly IssueLike[] = result.error.issues;
    return { success: false, problems: issues.flatMap((issue) => toProblems(issue, input, options.path ?? "")) };
  }
  const { chat, budget, ...rest } = withoutNulls(result.data);
  const definition: AgentDefinition = { ...rest, agentId: result.data.agentId, displayName: result.data.displayName };
  if (chat) {
    definition.chat = withoutNulls(chat);
    // A deep copy: the definition shares nothing with the input.
    if (definition.chat.providerOptions)
      definition.chat.providerOptions = copyPlainJson(definition.chat.providerOptions);
  }
  if (budget) definition.budget = withoutNulls(budget);
  return { success: true, definition };
}

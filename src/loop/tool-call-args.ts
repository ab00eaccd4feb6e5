import {
  droppedArgsProblem,
  droppedArgsText,
  isJsonTextTooDeep,
  MAX_JSON_DEPTH,
  MAX_JSON_VALUES,
  readOutsideJson,
  type OutsideJsonProblem,
} from "../internal/outside-json.js";
import { echoName } from "./tool-result.js";

/** What the model reads when its call is refused for each reason. */
const REASON: Record<OutsideJsonProblem, string> = {
  too_deep: `they are nested deeper than ${MAX_JSON_DEPTH} levels (the limit), so they were dropped. Send flatter arguments.`,
  too_many_values: `they hold more than ${MAX_JSON_VALUES} values (the limit), so they were dropped. Send smaller arguments.`,
  unreadable: "they could not be read as JSON, so they were dropped. Send the arguments as a JSON object.",
};

/**
 * The arguments of a provider's `tool_call` as the loop keeps them (in the assistant message, the
 * store, events): a plain JSON copy of a value, or the provider's raw string as it is (parsed when
 * the call is planned). Arguments that cannot be plain JSON (nested deeper than 64 levels, over a
 * million values, a getter or Proxy trap that throws, a bigint) are replaced by a short fixed text
 * that {@link readToolArgs} refuses: the hostile value itself is never kept, stored or emitted.
 */
export function storedToolArgs(args: unknown): unknown {
  if (typeof args === "string") return args;
  const read = readOutsideJson(args);
  return read.ok ? read.value : droppedArgsText(read.problem);
}

/**
 * The arguments of a call as the tool will get them, or the refusal the model reads: a string is
 * parsed (`""` is `{}`), and refused when it is not JSON, when its value is nested deeper than
 * 64 levels or too large, or when it is the text {@link storedToolArgs} left in place of
 * arguments it dropped.
 */
export function readToolArgs(
  name: string,
  args: unknown,
): { ok: true; value: unknown } | { ok: false; refusal: string } {
  if (typeof args !== "string") return { ok: true, value: args };
  const dropped = droppedArgsProblem(args);
  if (dropped !== undefined) return { ok: false, refusal: refusal(name, dropped) };
  if (isJsonTextTooDeep(args)) return { ok: false, refusal: refusal(name, "too_deep") };
  let parsed: unknown;
  try {
    parsed = args.trim() === "" ? {} : (JSON.parse(args) as unknown);
  } catch {
    return {
      ok: false,
      refusal: `Invalid arguments for "${echoName(name)}": not valid JSON. Send the arguments as a JSON object.`,
    };
  }
  const read = readOutsideJson(parsed);
  return read.ok ? { ok: true, value: read.value } : { ok: false, refusal: refusal(name, read.problem) };
}

function refusal(name: string, problem: OutsideJsonProblem): string {
  return `Invalid arguments for "${echoName(name)}": ${REASON[problem]}`;
}

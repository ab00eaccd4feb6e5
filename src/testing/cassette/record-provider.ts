import { InvalidArgumentError } from "../../errors/errors.js";
import { readEnv } from "../../providers/read-env.js";
import type { Provider } from "../../contracts/provider.js";
import type { CassetteRedact } from "./cassette-request.js";
import {
  createCassetteProvider,
  type CassetteMode,
  type CassetteProvider,
  type CassetteVolatileOptions,
} from "./create-cassette-provider.js";

/** The environment variable that overrides `recordProvider`'s `mode` (re-record without editing a test). */
export const CASSETTE_MODE_VARIABLE = "AGENTRY_CASSETTE_MODE";

const MODES: readonly CassetteMode[] = ["replay", "record", "missing"];

/** Options of {@link recordProvider}. */
export interface RecordProviderOptions {
  /** The cassette file (JSON lines); its folder is created when missing. */
  path: string;
  /**
   * `"record"` (call the provider, write the cassette anew), `"replay"` (recordings only, the
   * provider is never called) or `"missing"` (replay what matches, record the rest). The
   * environment variable `AGENTRY_CASSETTE_MODE`, when set, wins.
   * @default "record"
   */
  mode?: CassetteMode;
  /** Applied to every request and event before it is written, and to requests before matching. @default none */
  redact?: CassetteRedact;
  /**
   * What is written as a placeholder because it changes from run to run; `false`: nothing. @default { ids: true, keys:
   * ["durationMs", "duration_ms"] }
   */
  volatile?: CassetteVolatileOptions | false;
}

/** Throws `InvalidArgumentError` naming every problem with a cassette's options. */
export function checkCassetteOptions(
  name: string,
  options: { path?: unknown; mode?: unknown; redact?: unknown },
  provider?: unknown,
): void {
  const problems: string[] = [];
  if (typeof options?.path !== "string" || options.path === "") problems.push("path must be a non-empty string");
  if (options?.mode !== undefined && !MODES.includes(options.mode as CassetteMode))
    problems.push(`mode must be one of ${MODES.join(", ")}`);
  if (options?.redact !== undefined && typeof options.redact !== "function") problems.push("redact must be a function");
  if (provider !== undefined && typeof (provider as Provider | null)?.stream !== "function")
    problems.push("provider must have a stream() method");
  if (problems.length > 0) throw new InvalidArgumentError(`${name}: ${problems.join("; ")}`);
}

/**
 * Wraps any provider (OpenAI, Anthropic, the AI SDK bridge, a CLI agent, a fake) so a real run
 * becomes a deterministic test: every request and the events it streamed back are written to a
 * cassette file, one JSON line per request and one per response, in call order, keys in a
 * stable order, no timestamps. `replayProvider({ path })` (or this function in `"replay"` mode)
 * serves them back offline, with no delays.
 *
 * Matching is by what the model is asked (model, system prompt, messages, tools, output
 * schema, request options); `caller` is written but not matched. Each recording is served once,
 * the oldest matching one first, so parallel sub-tasks may ask in another order than recorded.
 * A request no recording matches fails the call with `CassetteMismatchError`, which names what
 * changed and how to record again. Node only: `node:fs` is loaded at the first call.
 *
 * @example
 * const provider = recordProvider(openai(), { path: "tests/cassettes/weather.jsonl", mode: "missing" });
 * // AGENTRY_CASSETTE_MODE=replay in CI: no network, no key needed.
 */
export function recordProvider(provider: Provider, options: RecordProviderOptions): CassetteProvider {
  checkCassetteOptions("recordProvider", options, provider ?? null);
  const fromEnv = readEnv(CASSETTE_MODE_VARIABLE);
  if (fromEnv !== undefined && !MODES.includes(fromEnv as CassetteMode)) {
    throw new InvalidArgumentError(
      `recordProvider: ${CASSETTE_MODE_VARIABLE} must be one of ${MODES.join(", ")}, got "${fromEnv}"`,
    );
  }
  return createCassetteProvider({
    path: options.path,
    mode: (fromEnv as CassetteMode | undefined) ?? options.mode ?? "record",
    provider,
    id: provider.id,
    redact: options.redact,
    volatile: options.volatile,
  });
}

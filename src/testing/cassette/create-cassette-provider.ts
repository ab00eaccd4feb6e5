import { ProviderError } from "../../errors/errors.js";
import { abortError, isAbortError, sleep } from "../../internal/abort.js";
import type { ModelCaller, ModelEvent, ModelRequest, Provider } from "../../contracts/provider.js";
import { canonicalJson, createVolatility, restoreIds } from "./canonical-json.js";
import {
  canonicalKey,
  ensureFolder,
  headerLine,
  loadFs,
  parseCassette,
  type CassetteEnd,
  type RecordedError,
  type RecordedInteraction,
} from "./cassette-file.js";
import { CassetteMismatchError } from "./cassette-mismatch-error.js";
import {
  cassetteEvent,
  cassetteView,
  keyMatches,
  requestKeyParts,
  requestLine,
  type CanonicalCache,
  type CassetteRedact,
} from "./cassette-request.js";
import { closestRecording, requestDifferences } from "./describe-mismatch.js";

/**
 * What a cassette provider does with a request.
 * - `"replay"`: serves recordings only; a request none matches fails the call with a
 *   `CassetteMismatchError`. Never calls a provider.
 * - `"record"`: calls the real provider for every request and writes the cassette anew.
 * - `"missing"`: serves what matches; calls the real provider for the rest and rewrites the
 *   cassette as the calls of this run (recordings it no longer asked for are dropped). A run
 *   that finds everything leaves the file untouched.
 */
export type CassetteMode = "replay" | "record" | "missing";

/** Values that change from run to run, written as placeholders so a recording still matches. */
export interface CassetteVolatileOptions {
  /**
   * UUIDs in requests (the runtime's session and run ids) become `<id:1>`, `<id:2>`, ... by
   * first appearance in each request, and a replayed event that names one gets the id of the
   * live request back.
   * @default true
   */
  ids?: boolean;
  /**
   * Values under these keys, anywhere in a request, are written as `"<varies>"`.
   * @default ["durationMs", "duration_ms"] (the timings in `agents_message` results)
   */
  keys?: string[];
}

/** A provider that records to and replays from a cassette file. */
export interface CassetteProvider extends Provider {
  /** The cassette file. */
  readonly path: string;
  /** The mode in force (after `AGENTRY_CASSETTE_MODE`, for `recordProvider`). */
  readonly mode: CassetteMode;
  /**
   * How many recorded interactions this provider has not served (yet); 0 in `"record"` mode. Reads the file if no call
   * did.
   */
  unused(): Promise<number>;
}

/** The engine behind `recordProvider` and `replayProvider`. */
export interface CassetteEngineOptions {
  path: string;
  mode: CassetteMode;
  /** The real provider (absent for `replayProvider`). */
  provider: Provider | undefined;
  id: string;
  redact: CassetteRedact | undefined;
  volatile: CassetteVolatileOptions | false | undefined;
}

const DEFAULT_VOLATILE_KEYS = ["durationMs", "duration_ms"];

type Fs = Awaited<ReturnType<typeof loadFs>>;

/** One call of this run, as it will be written. */
interface Served {
  state: "pending" | "done" | "skipped";
  requestLine: string;
  responseLine: string;
}

interface State {
  fs: Fs;
  fileExisted: boolean;
  recorded: RecordedInteraction[];
  /**
   * Canonical request → indexes of unused recordings with it, oldest first. Built at the first
   * request that is not the next recording in order (hashing every long key costs more than
   * comparing with the one expected).
   */
  queues: Map<string, number[]> | undefined;
  /** The first recording not served yet. */
  next: number;
  used: boolean[];
  unused: number;
  served: Served[];
  /** Served calls up to here are written (or, before writing starts, settled). */
  flushed: number;
  writing: boolean;
  /** Whether the recordings' keys were recomputed from their content (after a first miss). */
  rekeyed: boolean;
}

const RERECORD =
  'To record again: recordProvider(provider, { path, mode: "record" }) (mode "missing" records only what no longer matches); ' +
  "where the test uses recordProvider, AGENTRY_CASSETTE_MODE=record (or missing) does the same without editing it.";

/** A cassette provider's options, resolved, and its state once loaded. */
interface Engine {
  path: string;
  mode: CassetteMode;
  provider: Provider | undefined;
  id: string;
  redact: CassetteRedact | undefined;
  volatile: { normalizeIds: boolean; keys: ReadonlySet<string> };
  loading: Promise<State> | undefined;
  /** Canonical text of the messages and tools this provider was asked with before. */
  cache: CanonicalCache;
}

/** Creates a cassette provider; the file is read (or started) when the first call is read. */
export function createCassetteProvider(options: CassetteEngineOptions): CassetteProvider {
  const engine: Engine = {
    ...options,
    volatile: {
      normalizeIds: options.volatile !== false && (options.volatile?.ids ?? true),
      keys: new Set(options.volatile === false ? [] : (options.volatile?.keys ?? DEFAULT_VOLATILE_KEYS)),
    },
    loading: undefined,
    cache: new WeakMap(),
  };
  return {
    id: options.provider?.id ?? options.id,
    path: options.path,
    mode: options.mode,
    unused: async () => (await (engine.loading ??= load(engine))).unused,
    stream: (request, { signal }) => play(engine, request, signal),
  };
}

async function load(engine: Engine): Promise<State> {
  const { path, mode } = engine;
  const fs = await loadFs();
  // Read without asking first whether the file exists: one system call less on every replayed run.
  const text = mode === "record" ? undefined : readIfPresent(fs, path);
  const fileExisted = text !== undefined;
  const cassette = text !== undefined ? parseCassette(text, path) : { interactions: [] };
  const state: State = {
    fs,
    fileExisted,
    recorded: cassette.interactions,
    queues: undefined,
    next: 0,
    used: cassette.interactions.map(() => false),
    unused: cassette.interactions.length,
    served: [],
    flushed: 0,
    writing: false,
    rekeyed: false,
  };
  if (mode === "record") startWriting(engine, state);
  return state;
}

/** The file's text, or undefined when there is no such file. */
function readIfPresent(fs: Fs, path: string): string | undefined {
  try {
    return fs.readFileSync(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "ENOENT") return undefined;
    throw error;
  }
}

/** Starts the file anew: the header, then the calls of this run settled so far. */
function startWriting(engine: Engine, state: State): void {
  if (state.writing) return;
  state.writing = true;
  ensureFolder(state.fs, engine.path);
  const lines = [headerLine(engine.provider?.id ?? engine.id)];
  for (const entry of state.served.slice(0, state.flushed))
    if (entry.state === "done") lines.push(entry.requestLine, entry.responseLine);
  state.fs.writeFileSync(engine.path, `${lines.join("\n")}\n`);
}

/** Writes settled calls in call order (a call still streaming holds back the ones after it). */
function flush(engine: Engine, state: State): void {
  while (state.flushed < state.served.length && state.served[state.flushed]!.state !== "pending") {
    const entry = state.served[state.flushed++]!;
    if (state.writing && entry.state === "done")
      state.fs.appendFileSync(engine.path, `${entry.requestLine}\n${entry.responseLine}\n`);
  }
}

/** Indexes the unused recordings by key, with keys from their content when `recompute`. */
function index(state: State, recompute: boolean): Map<string, number[]> {
  const queues = new Map<string, number[]>();
  state.recorded.forEach((recording, i) => {
    if (state.used[i]) return;
    if (recompute) recording.key = canonicalKey(recording.request);
    const queue = queues.get(recording.key);
    if (queue) queue.push(i);
    else queues.set(recording.key, [i]);
  });
  return (state.queues = queues);
}

/**
 * The oldest unused recording of this request, marked used: the next one in order when it
 * matches, else any. At the first miss the keys are recomputed from the recordings' content
 * (a cassette edited by hand may not be written canonically) and the lookup is tried again.
 */
function take(state: State, parts: readonly string[]): number | undefined {
  let found: number | undefined;
  if (!state.queues && state.next < state.recorded.length && keyMatches(parts, state.recorded[state.next]!.key))
    found = state.next;
  else {
    const key = parts.join("");
    found = (state.queues ?? index(state, false)).get(key)?.shift();
    if (found === undefined && !state.rekeyed && state.unused > 0) {
      state.rekeyed = true;
      found = index(state, true).get(key)?.shift();
    }
  }
  if (found === undefined) return undefined;
  state.used[found] = true;
  state.unused--;
  while (state.next < state.recorded.length && state.used[state.next]) state.next++;
  return found;
}

async function* play(engine: Engine, request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
  const state = await (engine.loading ??= load(engine));
  const call = state.served.length;
  const entry: Served = { state: "pending", requestLine: "", responseLine: "" };
  state.served.push(entry);
  try {
    if (signal.aborted) throw abortError(signal);
    const volatility = createVolatility(engine.volatile);
    const view = cassetteView(request, engine.redact);
    const parts = requestKeyParts(view, volatility, engine.redact ? undefined : engine.cache);
    const hit = engine.mode === "record" ? undefined : take(state, parts);
    if (hit !== undefined) {
      const recording = state.recorded[hit]!;
      entry.requestLine = `{"call":${call},${recording.requestTail}`;
      entry.responseLine = `{"call":${call},${recording.responseTail}`;
      entry.state = "done";
      yield* replay(recording, volatility.ids, signal);
      return;
    }
    const provider = engine.provider;
    const key = parts.join("");
    if (engine.mode === "replay" || !provider) throw mismatch(engine.path, state, call, key, view.caller);
    entry.requestLine = requestLine(call, view, key, volatility);
    startWriting(engine, state);
    const events: string[] = [];
    let end: CassetteEnd = "aborted";
    let error: RecordedError | undefined;
    try {
      for await (const event of provider.stream(request, { signal })) {
        events.push(cassetteEvent(event, engine.redact, volatility));
        yield event;
      }
      end = "complete";
    } catch (thrown) {
      if (!signal.aborted && !isAbortError(thrown)) [end, error] = ["error", recordedError(thrown, provider.id)];
      throw thrown;
    } finally {
      const failure = error ? `,"error":${canonicalJson(error)}` : "";
      entry.responseLine = `{"call":${call},"response":{"end":"${end}"${failure},"events":[${events.join(",")}]}}`;
      entry.state = "done";
    }
  } finally {
    if (entry.state === "pending") entry.state = "skipped";
    flush(engine, state);
  }
}

/** The error for a request no recording answers: what changed against the closest one, and how to record again. */
function mismatch(
  path: string,
  state: State,
  call: number,
  key: string,
  caller: ModelCaller | undefined,
): CassetteMismatchError {
  const who = callerText(caller);
  const fail = (message: string, differences: string[] = []) =>
    new CassetteMismatchError({
      path,
      callIndex: call,
      differences,
      message: `Cassette "${path}": ${message}\n${RERECORD}`,
    });
  if (!state.fileExisted) return fail(`no such file (request ${call}${who} has nothing to replay).`);
  const unused = state.used.flatMap((used, index) => (used ? [] : [index]));
  const now = JSON.parse(`{${key}}`) as ModelRequest;
  const closest = closestRecording(
    now,
    state.recorded.map((recording) => recording.request),
    unused,
  );
  if (closest === undefined)
    return fail(`request ${call}${who} came after all ${state.recorded.length} recorded interactions were served.`);
  const differences = requestDifferences(state.recorded[closest]!.request, now);
  const listed = differences.map((line) => `  - ${line}`).join("\n");
  return fail(
    `request ${call}${who} matches no recorded interaction. Against the closest recording (call ${closest}), recorded → now:\n${listed}`,
    differences,
  );
}

/** Plays a recording: its events (ids restored), then its end. */
async function* replay(
  recording: RecordedInteraction,
  ids: ReadonlyMap<string, string>,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  for (const event of recording.events) {
    if (signal.aborted) throw abortError(signal);
    yield recording.hasIds ? restoreIds(event, ids) : event;
  }
  if (recording.end === "error") throw rebuiltError(recording.error);
  // A response that was not read to its end: what the reader got, then nothing until it aborts.
  if (recording.end === "aborted") await sleep(Number.POSITIVE_INFINITY, signal);
}

function recordedError(thrown: unknown, provider: string): RecordedError {
  if (ProviderError.isInstance(thrown)) {
    const error: RecordedError = {
      name: thrown.name,
      message: thrown.message,
      provider: thrown.provider,
      retryable: thrown.retryable,
    };
    if (thrown.status !== undefined) error.status = thrown.status;
    if (thrown.retryAfterMs !== undefined) error.retryAfterMs = thrown.retryAfterMs;
    if (thrown.errorType !== undefined) error.errorType = thrown.errorType;
    return error;
  }
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  return { name: error.name, message: error.message, provider };
}

function rebuiltError(recorded: RecordedError | undefined): Error {
  const error = recorded ?? { name: "Error", message: "recorded error" };
  if (error.name === "ProviderError") {
    return new ProviderError(error.message, {
      provider: error.provider ?? "replay",
      ...(error.status !== undefined && { status: error.status }),
      ...(error.retryable !== undefined && { retryable: error.retryable }),
      ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
      ...(error.errorType !== undefined && { errorType: error.errorType }),
    });
  }
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}

function callerText(caller: ModelCaller | undefined): string {
  if (!caller) return "";
  const parts = [caller.agentId === undefined ? undefined : `agent "${caller.agentId}"`, `depth ${caller.depth}`];
  if (caller.subtaskTitle !== undefined) parts.push(`sub-task "${caller.subtaskTitle}"`);
  return ` (${parts.filter(Boolean).join(", ")})`;
}

import { InvalidArgumentError } from "../../errors/errors.js";
import type { ModelEvent, ModelRequest } from "../../contracts/provider.js";
import { createVolatility } from "./canonical-json.js";
import { requestKey } from "./cassette-request.js";

/** The first line of every cassette. */
export const CASSETTE_FORMAT = "agentry-cassette";
export const CASSETTE_VERSION = 1;

/** How a recorded response ended. */
export type CassetteEnd = "complete" | "error" | "aborted";

/** A recorded stream failure: enough to throw the same kind of error again. */
export interface RecordedError {
  name: string;
  message: string;
  provider?: string;
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  errorType?: string;
}

/** One recorded model call, as read from a cassette. */
export interface RecordedInteraction {
  /** The request as written (redacted, ids as placeholders); parsed when first read. */
  readonly request: ModelRequest;
  /** Its matched fields as canonical JSON. */
  key: string;
  events: ModelEvent[];
  end: CassetteEnd;
  error: RecordedError | undefined;
  /** The two lines as written, `call` index left out (`{"call":N,` is prepended when written again). */
  requestTail: string;
  responseTail: string;
  /** Whether its events hold id placeholders to restore. */
  hasIds: boolean;
}

/** A cassette file's content. */
export interface Cassette {
  provider: string | undefined;
  interactions: RecordedInteraction[];
}

// The few parts of node:fs used here, declared locally: the testing entry must not need @types/node.
interface NodeFs {
  readFileSync(path: string, encoding: "utf8"): string;
  writeFileSync(path: string, data: string): void;
  appendFileSync(path: string, data: string): void;
  mkdirSync(path: string, options: { recursive: true }): unknown;
  existsSync(path: string): boolean;
}

/**
 * The file system, loaded when a cassette is first used: the testing entry itself loads anywhere.
 * `process.getBuiltinModule` (Node 20.16+) is taken when there is one: a dynamic `import()` costs
 * more than replaying a short run.
 */
export async function loadFs(): Promise<NodeFs> {
  const specifier = "node:fs";
  const builtin = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.(specifier);
  return (builtin ?? (await import(/* @vite-ignore */ specifier))) as NodeFs;
}

/** Creates the cassette's folder when missing. */
export function ensureFolder(fs: NodeFs, path: string): void {
  const folder = path.replace(/[\\/][^\\/]*$/, "");
  if (folder !== path && folder !== "" && !fs.existsSync(folder)) fs.mkdirSync(folder, { recursive: true });
}

/** The header line. */
export function headerLine(provider: string): string {
  return JSON.stringify({ format: CASSETTE_FORMAT, version: CASSETTE_VERSION, provider });
}

/** The text after `{"call":N,` of a line written by this module. */
export function lineTail(line: string): string {
  return line.slice(line.indexOf(",") + 1);
}

/**
 * The matched part of a request line as this module writes it (canonical already): the text
 * between `"request":{` and the top-level `caller` (a flat object, always last) or the end. A
 * line written otherwise (edited by hand) gets a key that matches nothing: the provider then
 * recomputes every key with {@link canonicalKey}, the slow and sure way.
 */
function writtenKey(line: string): string {
  const start = line.indexOf('"request":{') + '"request":{'.length;
  const caller = line.lastIndexOf(',"caller":{');
  const hasCaller = caller > start && /^,"caller":\{[^{}]*\}\}\}$/.test(line.slice(caller));
  return line.slice(start, hasCaller ? caller : line.length - 2);
}

/** The matched part of a recorded request, made canonical whatever the file's formatting. */
export function canonicalKey(request: ModelRequest): string {
  return requestKey(request, createVolatility({ normalizeIds: false, keys: new Set() }));
}

/** Reads a cassette's text; a line that is not what this module writes throws, naming the file and line. */
export function parseCassette(text: string, path: string): Cassette {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const fail = (line: number, problem: string): never => {
    throw new InvalidArgumentError(`Cassette "${path}", line ${line}: ${problem}. Re-record it (mode "record").`);
  };
  const parse = (index: number): Record<string, any> => {
    try {
      const value: unknown = JSON.parse(lines[index]!);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, any>;
    } catch {
      // reported below
    }
    return fail(index + 1, "not a JSON object");
  };
  if (lines.length === 0) return { provider: undefined, interactions: [] };
  const header = parse(0);
  if (header.format !== CASSETTE_FORMAT || header.version !== CASSETTE_VERSION) {
    fail(1, `not an Agentry cassette (expected {"format":"${CASSETTE_FORMAT}","version":${CASSETTE_VERSION}})`);
  }
  const interactions: RecordedInteraction[] = [];
  for (let i = 1; i < lines.length; i += 2) {
    const line = lines[i]!;
    if (!line.includes('"request":{')) fail(i + 1, "expected a request line");
    if (i + 1 >= lines.length) fail(i + 1, "a request line without its response line");
    const response = parse(i + 1).response as { events?: unknown; end?: unknown; error?: RecordedError } | undefined;
    if (!Array.isArray(response?.events) || !response.events.every((e: any) => typeof e?.type === "string"))
      fail(i + 2, "expected a response line with events");
    const end = response!.end;
    if (end !== "complete" && end !== "error" && end !== "aborted") fail(i + 2, `unknown end ${JSON.stringify(end)}`);
    // Request lines are most of a cassette and matching needs only their text: parsed when a mismatch is explained.
    let request: ModelRequest | undefined;
    const index = i;
    interactions.push({
      get request() {
        if (request) return request;
        const parsed = parse(index).request as ModelRequest | undefined;
        if (typeof parsed !== "object" || parsed === null || !Array.isArray(parsed.messages))
          return fail(index + 1, "expected a request line");
        return (request = parsed);
      },
      key: writtenKey(line),
      events: response!.events as ModelEvent[],
      end: end as CassetteEnd,
      error: response!.error,
      requestTail: lineTail(line),
      responseTail: lineTail(lines[i + 1]!),
      hasIds: lines[i + 1]!.includes("<id:"),
    });
  }
  return { provider: typeof header.provider === "string" ? header.provider : undefined, interactions };
}

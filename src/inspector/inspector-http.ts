import { readBoundedBody } from "../internal/read-bounded-body.js";

/** An HTTP failure a route raises: answered as JSON `{ error }` with `status`. */
export class InspectorHttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "InspectorHttpError";
    this.status = status;
  }
}

const NO_STORE = { "cache-control": "no-store", "x-content-type-options": "nosniff" };

/** A JSON response (never cached: it holds tenant data). */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...NO_STORE, "content-type": "application/json; charset=utf-8" },
  });
}

/** The inspector's error body `{ error }` with `status`. */
export function errorResponse(status: number, message: string): Response {
  return json({ error: message }, status);
}

/** A 404 that reveals nothing: the same for an unknown id and for one outside the caller's scopes. */
export function notFound(what = "not found"): InspectorHttpError {
  return new InspectorHttpError(404, what);
}

/** Longest request body read (an action's JSON is a few hundred bytes). */
const MAX_BODY_BYTES = 64 * 1024;

/** Reads a JSON object body of at most 64 KiB; anything else is a 400. */
export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await readBoundedText(request, MAX_BODY_BYTES);
  let parsed: unknown;
  try {
    parsed = text === "" ? {} : JSON.parse(text);
  } catch {
    throw new InspectorHttpError(400, "the body is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InspectorHttpError(400, "the body must be a JSON object");
  return parsed as Record<string, unknown>;
}

async function readBoundedText(request: Request, limit: number): Promise<string> {
  const text = await readBoundedBody(request, limit);
  if (text === undefined) throw new InspectorHttpError(413, "the body is too large");
  return text;
}

/** A bounded integer query parameter: `fallback` when absent, a 400 when not an integer in range. */
export function intParam(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new InspectorHttpError(400, `${name} must be an integer from ${min} to ${max}`);
  return n;
}

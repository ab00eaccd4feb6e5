import { InvalidArgumentError } from "../../errors/errors.js";
import type { ModelEvent, ModelRequest } from "../../contracts/provider.js";
import { canonicalJson, type Volatility } from "./canonical-json.js";

/**
 * Keeps secrets and personal data out of a cassette: gets a copy of each request (as the cassette
 * keeps it) and of each event, returns what to write. Called with the same input on record and
 * on replay, so matching compares redacted forms. Must return a request for a request and an
 * event for an event.
 */
export type CassetteRedact = (value: ModelRequest | ModelEvent) => ModelRequest | ModelEvent;

/**
 * The request fields a recording is matched on, in the order a cassette writes them (`toolChoice` last: a
 * recording made before it existed, without one, still matches).
 */
const MATCHED = [
  "model",
  "system",
  "messages",
  "tools",
  "maxOutputTokens",
  "temperature",
  "providerOptions",
  "toolChoice",
] as const;

/**
 * What a cassette keeps of a request: what reaches the model (each message's `role` and
 * `content`, the tool choice; not the loop's metadata such as `executionTree`, `usage` or `messageType`), and the
 * `caller`, kept for reading but not matched on.
 */
export function cassetteView(request: ModelRequest, redact: CassetteRedact | undefined): ModelRequest {
  const view: ModelRequest = {
    model: request.model,
    system: request.system,
    tools: request.tools,
    messages: request.messages.map(
      (message) => ({ role: message.role, content: message.content }) as ModelRequest["messages"][number],
    ),
  };
  if (request.maxOutputTokens !== undefined) view.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) view.temperature = request.temperature;
  if (request.providerOptions !== undefined) view.providerOptions = request.providerOptions;
  if (request.toolChoice !== undefined) view.toolChoice = request.toolChoice;
  if (request.caller !== undefined) view.caller = request.caller;
  if (!redact) return view;
  const redacted = redact(structuredClone(view));
  if (!isRequest(redacted))
    throw new InvalidArgumentError(
      "Cassette redact: given a request, it must return a request (model, system, messages, tools)",
    );
  return redacted;
}

/** An event as a cassette writes it: redacted (a copy), ids the request introduced as placeholders. */
export function cassetteEvent(event: ModelEvent, redact: CassetteRedact | undefined, volatility: Volatility): string {
  let value: ModelRequest | ModelEvent = event;
  if (redact) {
    value = redact(structuredClone(event));
    if (isRequest(value) || typeof (value as { type?: unknown }).type !== "string") {
      throw new InvalidArgumentError(
        "Cassette redact: given an event, it must return an event (an object with a string `type`)",
      );
    }
  }
  volatility.numbering = false;
  return canonicalJson(value, volatility);
}

function isRequest(value: unknown): value is ModelRequest {
  const request = value as Partial<ModelRequest> | null;
  return (
    typeof request === "object" &&
    request !== null &&
    Array.isArray(request.messages) &&
    typeof request.model === "string"
  );
}

/**
 * Canonical JSON of parts of requests that recur from call to call (the history's messages, a
 * level's tools), by identity. Only text that held no id is kept: it does not depend on the
 * request's id numbering. Valid while those objects are not changed, as the loop and the runtime
 * never change a message once it is in a history.
 */
export type CanonicalCache = WeakMap<object, string>;

function cachedJson(
  value: object,
  volatility: Volatility,
  cache: CanonicalCache | undefined,
  key: object = value,
): string {
  const hit = cache?.get(key);
  if (hit !== undefined) return hit;
  const seen = volatility.seen;
  const text = canonicalJson(value, volatility);
  if (cache && volatility.seen === seen) cache.set(key, text);
  return text;
}

/**
 * The matched part of a request view as canonical JSON (the members of an object, no braces),
 * in pieces: equal, joined, for requests that ask the model the same thing. Numbers ids as it
 * goes. Pieces, because comparing them with a recording's text in place ({@link keyMatches})
 * costs less than joining a long history into one string at every call.
 */
export function requestKeyParts(view: ModelRequest, volatility: Volatility, cache?: CanonicalCache): string[] {
  const parts: string[] = [];
  for (const field of MATCHED) {
    const value = view[field];
    if (value === undefined) continue;
    parts.push(parts.length === 0 ? `"${field}":` : `,"${field}":`);
    if (field === "messages") {
      // A message view is a fresh object around the history's content array: that array is the key.
      view.messages.forEach((message, i) => {
        parts.push(i === 0 ? "[" : ",");
        parts.push(
          typeof message.content === "string"
            ? canonicalJson(message, volatility)
            : cachedJson(message, volatility, cache, message.content),
        );
      });
      parts.push(view.messages.length === 0 ? "[]" : "]");
    } else parts.push(field === "tools" ? cachedJson(view.tools, volatility, cache) : canonicalJson(value, volatility));
  }
  return parts;
}

/** {@link requestKeyParts}, joined. */
export function requestKey(view: ModelRequest, volatility: Volatility, cache?: CanonicalCache): string {
  return requestKeyParts(view, volatility, cache).join("");
}

/** Whether `parts`, joined, are `key` (compared in place). */
export function keyMatches(parts: readonly string[], key: string): boolean {
  let offset = 0;
  for (const part of parts) {
    // Not `startsWith(part, offset)`: V8 runs it far slower on a slice of a long file's text.
    if (key.slice(offset, offset + part.length) !== part) return false;
    offset += part.length;
  }
  return offset === key.length;
}

/** The request line of call `call`: the matched fields, then `caller`. */
export function requestLine(call: number, view: ModelRequest, key: string, volatility: Volatility): string {
  const caller = view.caller === undefined ? "" : `,"caller":${canonicalJson(view.caller, volatility)}`;
  return `{"call":${call},"request":{${key}${caller}}}`;
}

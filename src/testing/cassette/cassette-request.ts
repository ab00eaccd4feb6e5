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

/** The request fields a recording is matched on, in the order a cassette writes them. */
const MATCHED = ["model", "system", "messages", "tools", "maxOutputTokens", "temperature", "providerOptions"] as const;

/**
 * What a cassette keeps of a request: what reaches the model (each message's `role` and
 * `content`; not the loop's metadata such as `executionTree`, `usage` or `messageType`), and the
 * `caller`, kept for reading but not matched on.
 */
export function cassetteView(request: ModelRequest, redact: CassetteRedact | undefined): ModelRequest {
  const view: ModelRequest = {
    model: request.model,
    system: request.system,
    tools: request.tools,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content }) as ModelRequest["messages"][number]),
  };
  if (request.maxOutputTokens !== undefined) view.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) view.temperature = request.temperature;
  if (request.providerOptions !== undefined) view.providerOptions = request.providerOptions;
  if (request.caller !== undefined) view.caller = request.caller;
  if (!redact) return view;
  const redacted = redact(structuredClone(view));
  if (!isRequest(redacted)) throw new InvalidArgumentError("Cassette redact: given a request, it must return a request (model, system, messages, tools)");
  return redacted;
}

/** An event as a cassette writes it: redacted (a copy), ids the request introduced as placeholders. */
export function cassetteEvent(event: ModelEvent, redact: CassetteRedact | undefined, volatility: Volatility): string {
  let value: ModelRequest | ModelEvent = event;
  if (redact) {
    value = redact(structuredClone(event));
    if (isRequest(value) || typeof (value as { type?: unknown }).type !== "string") {
      throw new InvalidArgumentError("Cassette redact: given an event, it must return an event (an object with a string `type`)");
    }
  }
  volatility.numbering = false;
  return canonicalJson(value, volatility);
}

function isRequest(value: unknown): value is ModelRequest {
  const request = value as Partial<ModelRequest> | null;
  return typeof request === "object" && request !== null && Array.isArray(request.messages) && typeof request.model === "string";
}

/**
 * The matched part of a request view as canonical JSON (the members of an object, no braces):
 * equal for requests that ask the model the same thing. Numbers ids as it goes.
 */
export function requestKey(view: ModelRequest, volatility: Volatility): string {
  const parts: string[] = [];
  for (const field of MATCHED) {
    const value = view[field];
    if (value !== undefined) parts.push(`"${field}":${canonicalJson(value, volatility)}`);
  }
  return parts.join(",");
}

/** The request line of call `call`: the matched fields, then `caller`. */
export function requestLine(call: number, view: ModelRequest, key: string, volatility: Volatility): string {
  const caller = view.caller === undefined ? "" : `,"caller":${canonicalJson(view.caller, volatility)}`;
  return `{"call":${call},"request":{${key}${caller}}}`;
}

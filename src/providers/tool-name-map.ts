import type { Message } from "../contracts/message.js";
import type { ModelEvent, ModelRequest } from "../contracts/provider.js";

/** Tool names every vendor accepts (OpenAI, Anthropic, Gemini). */
const VENDOR_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Agentry tool names ↔ the names sent to a vendor, for one request. */
export interface ToolNameMap {
  /** The vendor name of an Agentry tool name. */
  toVendor(name: string): string;
  /** The Agentry name of a vendor name; a name the request did not send passes through unchanged. */
  fromVendor(name: string): string;
}

/**
 * Maps the tool names of one request (offered tools first, then names in the history) to names
 * the vendor accepts (`^[a-zA-Z0-9_-]{1,64}$`), reversibly and without collisions. A name the
 * vendor already accepts is sent as is; any other (dots, e.g. `fs.read_file`) has each invalid
 * character replaced by `_` and, when that name is taken (`fs_read_file` also offered), gets a
 * `_2`, `_3`, ... suffix. The same names in the same order always map the same way.
 */
export function createToolNameMap(names: Iterable<string>): ToolNameMap {
  const unique = [...new Set(names)];
  const taken = new Set(unique.filter((name) => VENDOR_NAME.test(name)));
  const forward = new Map<string, string>();
  const backward = new Map<string, string>();
  for (const name of unique) {
    if (VENDOR_NAME.test(name)) {
      forward.set(name, name);
      backward.set(name, name);
    }
  }
  for (const name of unique) {
    if (forward.has(name)) continue;
    const base = (name.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool").slice(0, 64);
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = base.slice(0, 64 - suffix.length) + suffix;
    }
    taken.add(candidate);
    forward.set(name, candidate);
    backward.set(candidate, name);
  }
  return {
    toVendor: (name) => forward.get(name) ?? name,
    fromVendor: (name) => backward.get(name) ?? name,
  };
}

/**
 * Every tool name a request carries: offered tools first, then the calls and results in its history, then the
 * tool its `toolChoice` names (last, so it never changes how the others map).
 */
function requestToolNames(request: ModelRequest): string[] {
  const names = request.tools.map((tool) => tool.name);
  for (const message of request.messages) {
    if (message.role === "user") continue;
    for (const part of message.content)
      if (part.type === "tool_call" || part.type === "tool_result") names.push(part.name);
  }
  if (typeof request.toolChoice === "object") names.push(request.toolChoice.name);
  return names;
}

/**
 * The request with every tool name (offered tools, the history's calls and results, a `toolChoice` by name) as
 * the vendor accepts it. A request whose names all need no mapping is returned as is (the common case costs one
 * scan).
 */
export function mapRequestToolNames(request: ModelRequest): { request: ModelRequest; names: ToolNameMap | undefined } {
  const names = requestToolNames(request);
  if (names.every((name) => VENDOR_NAME.test(name))) return { request, names: undefined };
  const map = createToolNameMap(names);
  const messages = request.messages.map((message): Message => {
    if (message.role === "assistant") {
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === "tool_call" ? { ...part, name: map.toVendor(part.name) } : part,
        ),
      };
    }
    if (message.role === "tool")
      return { ...message, content: message.content.map((part) => ({ ...part, name: map.toVendor(part.name) })) };
    return message;
  });
  const mapped: ModelRequest = {
    ...request,
    messages,
    tools: request.tools.map((tool) => ({ ...tool, name: map.toVendor(tool.name) })),
  };
  if (typeof request.toolChoice === "object") mapped.toolChoice = { name: map.toVendor(request.toolChoice.name) };
  return { request: mapped, names: map };
}

/** A model event with a vendor tool name (a `tool_call`'s, a `tool_call_start`'s) mapped back to the Agentry name. */
export function unmapToolCall(event: ModelEvent, names: ToolNameMap | undefined): ModelEvent {
  return names && (event.type === "tool_call" || event.type === "tool_call_start")
    ? { ...event, name: names.fromVendor(event.name) }
    : event;
}

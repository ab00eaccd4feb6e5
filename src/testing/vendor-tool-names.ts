import type { Message } from "../contracts/message.js";
import type { ModelRequest } from "../contracts/provider.js";
import { createToolNameMap } from "../providers/tool-name-map.js";

/** What a vendor-safe name could have been: `.` is the one character Agentry allows and vendors do not. */
const vendorBase = (name: string) => (name.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool").slice(0, 64);

/**
 * The names of a request in the order the adapters map them: offered tools first, then the history's, then the
 * one its tool choice names.
 */
function namesOf(request: ModelRequest): string[] {
  const names = request.tools.map((tool) => tool.name);
  for (const message of request.messages) {
    if (message.role === "user") continue;
    for (const part of message.content)
      if (part.type === "tool_call" || part.type === "tool_result") names.push(part.name);
  }
  if (typeof request.toolChoice === "object") names.push(request.toolChoice.name);
  return [...new Set(names)];
}

/** The Agentry name a vendor name most likely stands for, among `known` names. */
function guess(vendor: string, known: ReadonlySet<string>): string {
  if (known.has(vendor)) return vendor;
  for (const name of known) {
    if (name === vendor || vendorBase(name) === name) continue;
    const base = vendorBase(name);
    if (vendor === base || (vendor.startsWith(`${base}_`) && /^\d+$/.test(vendor.slice(base.length + 1)))) return name;
  }
  return vendor;
}

/**
 * A request as a fake server read it off the wire (vendor-safe tool names, `tickets_get`) with
 * the names the adapter mapped restored (`tickets.get`), plus the way back for the script's
 * answer. `known` holds the Agentry names the server knows of (its `tools` option, an array
 * script's calls, every name the script answered with). A guess is kept only when mapping the
 * guessed names the way the adapters do gives back exactly the names on the wire; otherwise the
 * wire names stay.
 */
export function restoreToolNames(
  request: ModelRequest,
  known: ReadonlySet<string>,
): { request: ModelRequest; toVendor: (name: string) => string } {
  const wire = namesOf(request);
  let names = wire.map((name) => guess(name, known));
  let map = createToolNameMap(names);
  if (new Set(names).size !== names.length || names.some((name, i) => map.toVendor(name) !== wire[i])) {
    names = wire;
    map = createToolNameMap(wire);
  }
  const unmapped = new Set(wire.filter((name, i) => names[i] === name));
  // A name the request never carried goes out as an adapter would have sent it (`a.b` → `a_b`).
  const toVendor = (name: string) => {
    const mapped = map.toVendor(name);
    if (mapped !== name || unmapped.has(name)) return mapped;
    return unmapped.has(vendorBase(name)) ? vendorBase(name) : name;
  };
  if (names === wire || names.every((name, i) => name === wire[i])) return { request, toVendor };
  const back = new Map(wire.map((name, i) => [name, names[i]!]));
  const restore = (name: string) => back.get(name) ?? name;
  const messages = request.messages.map((message): Message => {
    if (message.role === "assistant") {
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === "tool_call" ? { ...part, name: restore(part.name) } : part,
        ),
      };
    }
    if (message.role === "tool")
      return { ...message, content: message.content.map((part) => ({ ...part, name: restore(part.name) })) };
    return message;
  });
  const restored: ModelRequest = {
    ...request,
    messages,
    tools: request.tools.map((tool) => ({ ...tool, name: restore(tool.name) })),
  };
  if (typeof request.toolChoice === "object") restored.toolChoice = { name: restore(request.toolChoice.name) };
  return { request: restored, toVendor };
}

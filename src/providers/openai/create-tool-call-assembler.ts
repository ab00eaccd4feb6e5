import type { ModelEvent } from "../../contracts/provider.js";
import { asRecord, type WireRecord } from "../../internal/wire-guards.js";
import { parseToolArgs } from "../parse-tool-args.js";

/**
 * One `delta.tool_calls[]` entry as parsed from the wire: `{ index?, id?, type?, function?: { name?,
 * arguments?, id? } }`, every field optional and of any type (wrong types count as absent).
 */
export type ToolCallDelta = WireRecord;

/** A finished call, ready to be a `tool_call` event. */
export interface AssembledToolCall {
  id: string;
  name: string;
  args: unknown;
}

interface PendingCall {
  id: string | undefined;
  name: string | undefined;
  args: string;
  /** The id its `tool_call_start` announced (and its `tool_call` will carry), once started. */
  streamedId: string | undefined;
}

/**
 * Assembles streamed Chat Completions tool calls of one choice, by the rules that survive every
 * recorded server (wire-formats.md §1):
 *
 * - keyed by `index` when present (sparse, starting at 1, whatever); a delta whose `id` differs
 *   from the stored call's id at that index starts a new call (Ollama, litellm reuse index 0);
 * - without `index`, a new `id` opens a call and an id-less delta continues the last one;
 * - `""` for `id` / `name` / `type` means absent (DashScope, GLM, LM Studio); a name may arrive
 *   after the id or the arguments; a repeated name is not appended (old llama.cpp);
 * - arguments are concatenated and parsed only when the calls are closed (`finish_reason` or end
 *   of stream), never because the buffer happens to be valid JSON;
 * - a call is streamed (`tool_call_start`, then a `tool_call_delta` per fragment) once its name is
 *   known: fragments that came before are its first delta; its id is the wire id known then (else
 *   a generated one), and the complete call keeps it.
 */
export function createToolCallAssembler(init: { generateId: () => string }) {
  const calls: PendingCall[] = [];
  const byIndex = new Map<number, PendingCall>();
  let last: PendingCall | undefined;

  const open = (): PendingCall => {
    const call: PendingCall = { id: undefined, name: undefined, args: "", streamedId: undefined };
    calls.push(call);
    return call;
  };

  return {
    /**
     * Adds one delta entry; returns how many characters of arguments it added. The streaming events
     * it makes (`tool_call_start`, `tool_call_delta`) go into `out`.
     */
    add(delta: ToolCallDelta, out: ModelEvent[]): number {
      const fn = asRecord(delta.function);
      const id = nonEmpty(delta.id) ?? nonEmpty(fn?.id);
      const name = nonEmpty(fn?.name);
      const rawArgs = fn?.arguments;
      const args =
        typeof rawArgs === "string"
          ? rawArgs
          : typeof rawArgs === "object" && rawArgs !== null
            ? JSON.stringify(rawArgs)
            : "";
      const index = delta.index;
      let call: PendingCall | undefined;
      if (typeof index === "number") {
        call = byIndex.get(index);
        if (call && id !== undefined && call.id !== undefined && call.id !== id) call = undefined;
        if (!call) {
          call = open();
          byIndex.set(index, call);
        }
      } else if (id !== undefined) {
        call = calls.find((c) => c.id === id) ?? open();
      } else {
        call = last ?? open();
      }
      if (id !== undefined && call.id === undefined) call.id = id;
      if (name !== undefined && call.name === undefined) call.name = name;
      call.args += args;
      last = call;
      if (call.streamedId !== undefined) {
        if (args !== "") out.push({ type: "tool_call_delta", id: call.streamedId, argsDelta: args });
      } else if (call.name !== undefined) {
        call.streamedId = call.id ?? init.generateId();
        out.push({ type: "tool_call_start", id: call.streamedId, name: call.name });
        if (call.args !== "") out.push({ type: "tool_call_delta", id: call.streamedId, argsDelta: call.args });
      }
      return args.length;
    },
    /** How many calls have been opened so far. */
    get size(): number {
      return calls.length;
    },
    /**
     * The calls in order of first appearance, arguments parsed; calls that never got a name or anything else are
     * dropped.
     */
    finish(): AssembledToolCall[] {
      const out: AssembledToolCall[] = [];
      for (const call of calls) {
        if (call.name === undefined && call.id === undefined && call.args === "") continue;
        const id = call.streamedId ?? call.id ?? init.generateId();
        out.push({ id, name: call.name ?? "", args: parseToolArgs(call.args) });
      }
      calls.length = 0;
      byIndex.clear();
      last = undefined;
      return out;
    },
  };
}

/** The assembler's type. */
export type ToolCallAssembler = ReturnType<typeof createToolCallAssembler>;

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

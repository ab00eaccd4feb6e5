import { abortError, sleep } from "../internal/abort.js";
import type { ModelEvent, ModelRequest, Provider } from "../providers/provider.js";
import { iterateFakeTurnEvents, resolveFakeTurn, type FakeScript } from "./fake-script.js";

/** Options of {@link createFakeProvider}. */
export interface FakeProviderOptions {
  /** @default "fake" */
  id?: string;
  /** Keep a deep copy of every request in `calls`. Turn off in benchmarks. @default true */
  record?: boolean;
}

/** A scripted provider with its recorded requests. */
export interface FakeProvider extends Provider {
  /** A snapshot (deep copy) of every request, in order. */
  readonly calls: ModelRequest[];
  /** Unconsumed scripted turns (array form; `Infinity` for a function script). */
  remaining(): number;
}

/**
 * A deterministic, offline provider that plays a script. Sub-task loops call the same provider;
 * a function script can branch on `request.system` or the last message.
 *
 * A request beyond the end of an array script fails with an error naming the call index.
 *
 * @example
 * const provider = createFakeProvider([
 *   { toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] },
 *   { text: "It is 3." },
 * ]);
 */
export function createFakeProvider(script: FakeScript, options: FakeProviderOptions = {}): FakeProvider {
  const calls: ModelRequest[] = [];
  const record = options.record ?? true;
  let next = 0;
  return {
    id: options.id ?? "fake",
    calls,
    remaining: () => (typeof script === "function" ? Number.POSITIVE_INFINITY : Math.max(0, script.length - next)),
    async *stream(request, { signal }): AsyncGenerator<ModelEvent> {
      const callIndex = next++;
      if (record) calls.push(structuredClone(request));
      if (signal.aborted) throw abortError(signal);
      const resolved = resolveFakeTurn(script, request, callIndex);
      const turn = resolved instanceof Promise ? await resolved : resolved;
      if (turn.delayMs) await sleep(turn.delayMs, signal);
      for (const event of iterateFakeTurnEvents(turn, callIndex)) {
        if (signal.aborted) throw abortError(signal);
        yield event;
      }
      // The script decides what is thrown (usually a ProviderError); it is not ours to wrap.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (turn.error !== undefined) throw turn.error;
    },
  };
}

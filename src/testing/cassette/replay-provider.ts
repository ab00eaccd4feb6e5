import type { CassetteRedact } from "./cassette-request.js";
import {
  createCassetteProvider,
  type CassetteProvider,
  type CassetteVolatileOptions,
} from "./create-cassette-provider.js";
import { checkCassetteOptions } from "./record-provider.js";

/** Options of {@link replayProvider}. */
export interface ReplayProviderOptions {
  /** The cassette file `recordProvider` wrote. */
  path: string;
  /** The same `redact` the recording used, so requests are matched in their redacted form. @default none */
  redact?: CassetteRedact;
  /** As the recording's `volatile`. @default { ids: true, keys: ["durationMs", "duration_ms"] } */
  volatile?: CassetteVolatileOptions | false;
  /** The provider's id. @default "replay" */
  id?: string;
}

/**
 * Serves a cassette written by `recordProvider`: offline, deterministic, no delays. Each request
 * gets the oldest unused recording of the same request (model, system prompt, messages, tools,
 * options); one that matches none fails the call with `CassetteMismatchError`, naming what
 * changed (model, system prompt, which message and how, which tool) and how to record again.
 * A recorded provider error is thrown again (a `ProviderError` with its status and retryable).
 * Node only: `node:fs` is loaded at the first call.
 *
 * @example
 * const provider = replayProvider({ path: "tests/cassettes/weather.jsonl" });
 * const runtime = createAgentRuntime({ registry, store, providers: { openai: provider }, defaultModel: "gpt-4.1" });
 */
export function replayProvider(options: ReplayProviderOptions): CassetteProvider {
  checkCassetteOptions("replayProvider", options);
  return createCassetteProvider({
    path: options.path,
    mode: "replay",
    provider: undefined,
    id: options.id ?? "replay",
    redact: options.redact,
    volatile: options.volatile,
  });
}

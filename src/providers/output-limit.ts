import { ProviderError } from "../errors/errors.js";

/**
 * The most characters of text and tool-call arguments one output token is taken to carry when a
 * response is checked against `maxOutputTokens`: 32. Real tokens average about 4 characters; the
 * longest (runs of spaces or dashes) stay under 32 in every tokenizer in wide use.
 */
export const MAX_CHARS_PER_OUTPUT_TOKEN = 32;

/** Characters allowed on top of `maxOutputTokens × 32`, so a tiny limit does not misfire. */
const SLACK_CHARS = 1024;

/** Counts what a response has said (see {@link createOutputLimit}). */
export interface OutputLimit {
  /** Adds `chars` characters of text or tool-call arguments; throws once they are more than the limit. */
  add(chars: number): void;
}

/**
 * A check that one response's text and tool-call arguments stay within what the request's
 * `maxOutputTokens` could produce: `maxOutputTokens × 32 + 1024` characters. Past that, the
 * server is not keeping to the request (or is not a model at all), and `add` throws a
 * non-retryable `ProviderError` with `errorType: "output_too_large"` that ends the call.
 * Thinking is not counted: some servers do not count it against the limit. Without a
 * `maxOutputTokens` (or with one that is not a positive number), nothing is checked.
 */
export function createOutputLimit(init: { provider: string; maxOutputTokens: number | undefined }): OutputLimit {
  const { maxOutputTokens } = init;
  if (typeof maxOutputTokens !== "number" || !(maxOutputTokens > 0) || !Number.isFinite(maxOutputTokens))
    return { add: () => undefined };
  const limit = maxOutputTokens * MAX_CHARS_PER_OUTPUT_TOKEN + SLACK_CHARS;
  let total = 0;
  return {
    add(chars) {
      total += chars;
      if (total <= limit) return;
      throw new ProviderError(
        `The response's text and tool-call arguments passed ${limit} characters, more than maxOutputTokens (${maxOutputTokens}) ` +
          `tokens can hold (${MAX_CHARS_PER_OUTPUT_TOKEN} characters a token at most): the server does not keep to the request.`,
        { provider: init.provider, retryable: false, errorType: "output_too_large" },
      );
    },
  };
}

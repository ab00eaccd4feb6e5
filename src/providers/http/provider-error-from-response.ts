import type { ProviderError } from "../../errors/errors.js";
import { parseRetryAfter } from "./parse-retry-after.js";
import { providerErrorFromPayload } from "./provider-error-from-payload.js";
import { readBodyCapped } from "./read-body-capped.js";

/**
 * Reads (the first 64 KiB of) a failed HTTP response's body and turns it into a `ProviderError` (status, retryability,
 * wait).
 */
export async function providerErrorFromResponse(init: {
  provider: string;
  response: Response;
}): Promise<ProviderError> {
  const { response } = init;
  // At most 64 KiB of the body is read; when it cannot be read, the status alone tells what happened.
  const text = await readBodyCapped(response);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  const header = response.headers.get("x-should-retry");
  const retryAfterMs = parseRetryAfter(response.headers);
  const snippet = text.trim().slice(0, 500);
  return providerErrorFromPayload({
    provider: init.provider,
    payload,
    status: response.status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(header === "true" ? { shouldRetry: true } : header === "false" ? { shouldRetry: false } : {}),
    fallbackMessage: snippet || `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
  });
}

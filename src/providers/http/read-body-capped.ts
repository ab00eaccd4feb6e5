/** How much of a non-stream response body (an error, or JSON where a stream was expected) is read: 64 KiB. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads at most `maxBytes` of a response body as text and cancels the rest, so a huge or endless
 * error body costs a bounded amount of memory and time. A body that cannot be read gives "".
 */
export async function readBodyCapped(response: Response, maxBytes = MAX_ERROR_BODY_BYTES): Promise<string> {
  const body = response.body;
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let read = 0;
  try {
    while (read < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      const chunk = value.byteLength > maxBytes - read ? value.subarray(0, maxBytes - read) : value;
      read += chunk.byteLength;
      text += decoder.decode(chunk, { stream: true });
    }
    return text + decoder.decode();
  } catch {
    return text;
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

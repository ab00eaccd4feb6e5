/**
 * A tool result read off the wire, as the value the loop had: adapters send a result that is not
 * a string as JSON text, so text that parses as JSON is parsed back. A string result that happens
 * to be JSON text (`"42"`, `"{}"`) comes back parsed too: the wire cannot tell them apart.
 */
export function toolResultValue(text: string): unknown {
  const first = text.trimStart()[0];
  // Only text that can start a JSON value is tried: most plain-text results skip the parse.
  if (first === undefined || !/[[{"\d\-tfn]/.test(first)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

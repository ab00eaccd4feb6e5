// Small guards for reading parsed wire data (provider streams, CLI output): JSON.parse gives
// `unknown`, and a field of the wrong type must be ignored, never crash a reader with a TypeError.
// Hand-written rather than a schema library: they run per streamed delta.

/** A JSON object as parsed: any field may hold anything. */
export type WireRecord = Record<string, unknown>;

/** True for a JSON object (not `null`, not an array). */
export function isRecord(value: unknown): value is WireRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is a JSON object, else `undefined`. */
export function asRecord(value: unknown): WireRecord | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as WireRecord) : undefined;
}

/** The object at `record[key]`, or `undefined` (also when `record` itself is `undefined`). */
export function recordField(record: WireRecord | undefined, key: string): WireRecord | undefined {
  return record === undefined ? undefined : asRecord(record[key]);
}

/** The string at `record[key]`, or `undefined`. */
export function stringField(record: WireRecord | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === "string" ? value : undefined;
}

/** The array at `record[key]`, or `undefined`. */
export function arrayField(record: WireRecord | undefined, key: string): unknown[] | undefined {
  const value = record?.[key];
  return Array.isArray(value) ? (value as unknown[]) : undefined;
}

/** A count (tokens, ...) at `record[key]`: a finite number of 0 or more, else `undefined`. */
export function countField(record: WireRecord | undefined, key: string): number | undefined {
  const value = record?.[key];
  return typeof value === "number" && value >= 0 && value !== Infinity ? value : undefined;
}

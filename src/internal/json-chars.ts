/** Deeper nesting than this is not measured (it also stops cyclic values without tracking them). */
const MAX_JSON_DEPTH = 64;

/**
 * Length of `JSON.stringify(value)` without building the string (escapes ignored), allocation-free.
 * Nesting past 64 levels counts as nothing, so a cyclic value cannot recurse forever.
 */
export function jsonChars(value: unknown, depth = 0): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
      return Number.isFinite(value) ? String(value).length : 4; // NaN and Infinity become null
    case "boolean":
      return value ? 4 : 5;
    case "bigint":
      return String(value).length;
    case "object":
      break;
    default:
      return 0; // undefined, functions and symbols are left out of JSON
  }
  if (value === null) return 4;
  if (depth >= MAX_JSON_DEPTH) return 0;
  let chars = 2;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) chars += (isOmitted(item) ? 4 : jsonChars(item, depth + 1)) + 1; // omitted items become null
    if (value.length > 0) chars--;
  } else {
    let members = 0;
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
      const item = record[key];
      if (isOmitted(item)) continue;
      chars += key.length + 3 + jsonChars(item, depth + 1) + 1; // "key": value,
      members++;
    }
    if (members > 0) chars--;
  }
  return chars;
}

/** Values JSON leaves out of objects (and writes as null in arrays). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

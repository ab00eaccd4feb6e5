/**
 * Canonical JSON text of a plain JSON value: object keys sorted by UTF-16 code units (RFC 8785
 * order), no whitespace; strings and numbers as `JSON.stringify` writes them (which is RFC 8785's
 * form for both). `undefined`, functions and symbols are left out of objects and become `null` in
 * arrays, non-finite numbers become `null`, `toJSON` is applied: the same text for values that
 * `JSON.stringify` treats alike, whatever their key order. Throws for what JSON cannot hold
 * (bigint, cycles) and for nesting deeper than the stack allows.
 */
export function canonicalJson(value: unknown): string {
  const text = write(value, new Set());
  return text ?? "null";
}

function write(value: unknown, seen: Set<object>): string | undefined {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      throw new TypeError("canonicalJson: a bigint is not JSON");
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return "null";
  if (seen.has(value)) throw new TypeError("canonicalJson: a cycle is not JSON");
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item) => write(item, seen) ?? "null").join(",")}]`;
  } else {
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    // Default sort compares UTF-16 code units: RFC 8785's key order.
    for (const key of Object.keys(record).sort()) {
      const item = write(record[key], seen);
      if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
    }
    out = `{${parts.join(",")}}`;
  }
  seen.delete(value);
  return out;
}

/**
 * Why a schema cannot be used under the package's bounds (too large, a `$ref` chain that expands
 * too far, a `pattern` outside the linear-time subset, ...). The message says what to change.
 */
export class SchemaLimitError extends Error {
  override name = "SchemaLimitError";
}

/** A UTF-16 surrogate without its other half (`String.prototype.isWellFormed` is not on Node 20). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `text` holds a lone UTF-16 surrogate: text no store can keep as it is (UTF-8 columns
 * and `jsonb` rewrite it to U+FFFD or refuse it), so two different ids would become one.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** The problem of a string field that holds a lone surrogate, for an error message. */
export const LONE_SURROGATE_PROBLEM = "must not hold a lone UTF-16 surrogate";

/** `text` with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`, not on Node 20). */
export function toWellFormed(text: string): string {
  return hasLoneSurrogate(text) ? text.replace(new RegExp(LONE_SURROGATE, "g"), "\ufffd") : text;
}

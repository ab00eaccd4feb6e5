// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Whether `text` holds an ASCII control character (NUL, a line break, a tab, DEL...): never part of a name or an id.
 */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

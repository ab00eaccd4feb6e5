/**
 * An environment variable when the runtime has `process.env` (Node, Bun, Deno's Node mode), else
 * `undefined`. No `node:` import: the provider entries stay loadable in browsers and edge runtimes.
 * A read the runtime refuses (Deno without `--allow-env` throws `NotCapable`) counts as unset, so
 * an explicit option is all a sandboxed program needs.
 */
export function readEnv(name: string): string | undefined {
  let value: string | undefined;
  try {
    value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  } catch {
    return undefined;
  }
  return value === undefined || value === "" ? undefined : value;
}

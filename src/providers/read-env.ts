/**
 * An environment variable when the runtime has `process.env` (Node, Bun, Deno's Node mode), else
 * `undefined`. No `node:` import: the provider entries stay loadable in browsers and edge runtimes.
 */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === undefined || value === "" ? undefined : value;
}

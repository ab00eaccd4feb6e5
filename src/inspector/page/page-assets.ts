import { AgentryError } from "../../errors/agentry-error.js";
import { buildPageAssets, PAGE_ENTRY, type PageAssets } from "./build-page.js";

type Builtin = (id: string) => unknown;
type NodeModule = { createRequire: (from: string) => (id: string) => unknown };
type NodeUrl = { fileURLToPath: (url: URL) => string };

let fromSource: PageAssets | undefined;

/**
 * The inspector page's script and stylesheet.
 *
 * In the package this module is replaced at build time by the prebuilt strings
 * (`inspectorPagePlugin` in tsup.config.ts). Running from source (vitest, tsx), it bundles
 * `main.tsx` here on first use with esbuild (a dev dependency) and keeps the result for the
 * process: Node built-ins are taken through `process.getBuiltinModule`, so nothing is imported
 * statically. A bundler that inlines `src/` must use `inspectorPagePlugin` too.
 */
export function pageAssets(): PageAssets {
  fromSource ??= buildFromSource();
  return fromSource;
}

function buildFromSource(): PageAssets {
  const builtin = (globalThis as { process?: { getBuiltinModule?: Builtin } }).process?.getBuiltinModule;
  if (!builtin)
    throw new AgentryError("the inspector page is prebuilt by the package build; from source it needs Node 20.16+");
  const { createRequire } = builtin("node:module") as NodeModule;
  const { fileURLToPath } = builtin("node:url") as NodeUrl;
  const esbuild = createRequire(import.meta.url)("esbuild") as Parameters<typeof buildPageAssets>[0];
  return buildPageAssets(esbuild, fileURLToPath(new URL(`./${PAGE_ENTRY}`, import.meta.url)));
}

import * as esbuild from "esbuild";
import { defineConfig } from "tsup";
import { inspectorPagePlugin } from "./src/inspector/page/build-page.js";

/** One entry per public subpath; keep in step with package.json "exports". */
export const entries = {
  index: "src/index.ts",
  testing: "src/entries/testing.ts",
  openai: "src/entries/openai.ts",
  anthropic: "src/entries/anthropic.ts",
  node: "src/entries/node.ts",
  sqlite: "src/entries/sqlite.ts",
  postgres: "src/entries/postgres.ts",
  "ai-sdk": "src/entries/ai-sdk.ts",
  otel: "src/entries/otel.ts",
  ui: "src/entries/ui.ts",
  mcp: "src/entries/mcp.ts",
  inspector: "src/entries/inspector.ts",
};

/**
 * `zod-to-json-schema` is bundled with `zod/v3` replaced by its enum of type names (values equal
 * keys), so importing the core does not load zod 3 for hosts on zod 4 (cold import).
 */
const zodV3Kinds = (options: { alias?: Record<string, string> }) => {
  options.alias = { ...options.alias, "zod/v3": "./src/internal/zod-v3-kinds.ts" };
};

/**
 * The inspector's page (preact, src/inspector/page/) is bundled into the package as two strings:
 * the plugin replaces `page-assets.ts` with the prebuilt script and stylesheet (no build step for
 * the host, nothing loaded from the network, no esbuild at run time).
 */
const inspectorPage = inspectorPagePlugin(esbuild);

export default defineConfig([
  {
    entry: entries,
    format: ["esm"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "es2022",
    platform: "neutral",
    splitting: true,
    treeshake: true,
    // The runtime dependencies are bundled (they stay in "dependencies": their types, licences):
    // each package loaded at import costs a resolution and a file per module, and eventemitter3's
    // CommonJS file starts Node's CommonJS loader. Importing the core went from about 45 to 20 ms
    // over zod (bench/cold-import.mjs).
    noExternal: ["p-queue", "eventemitter3", "@cfworker/json-schema", "zod-to-json-schema", "zod/v3"],
    esbuildOptions: zodV3Kinds,
    esbuildPlugins: [inspectorPage],
  },
  {
    entry: entries,
    format: ["cjs"],
    dts: true,
    sourcemap: true,
    target: "es2022",
    platform: "neutral",
    treeshake: true,
    // p-queue ships ESM only; the CommonJS build carries its own copy so `require()` works on every Node 20.
    noExternal: ["p-queue", "zod-to-json-schema", "zod/v3"],
    esbuildOptions: zodV3Kinds,
    esbuildPlugins: [inspectorPage],
  },
  {
    // The command-line tools (package.json "bin"): Node only, ESM, no types; the store adapters
    // they open load on demand (better-sqlite3 / pg stay the host's optional peers).
    entry: { "agentry-inspect": "src/bin/agentry-inspect.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: false,
    clean: false,
    target: "node20",
    platform: "node",
    splitting: true,
    treeshake: true,
    noExternal: ["p-queue", "eventemitter3", "@cfworker/json-schema", "zod-to-json-schema", "zod/v3"],
    esbuildOptions: zodV3Kinds,
    esbuildPlugins: [inspectorPage],
  },
]);

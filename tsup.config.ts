import { defineConfig } from "tsup";

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
};

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
    noExternal: ["p-queue"],
  },
]);

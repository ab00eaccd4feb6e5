// Core bundle size: ../dist/index.js bundled with its dependencies (zod external), minified, gzipped,
// and the `ai` package's entry measured with the very same esbuild options in the same run.
//   node lib/bundle-size.mjs [--ai-dir=<dir>]...   (prints JSON: agentry, each ai, the ratios)
import { builtinModules } from "node:module";
import { gzipSync } from "node:zlib";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * One set of options for both sides. Node's built-in modules are external: Agentry's core entry
 * imports none (the figure is the same with or without), `ai` 6.x reaches them through
 * `@vercel/oidc`, which platform "neutral" cannot otherwise resolve.
 */
const options = {
  bundle: true,
  minify: true,
  format: "esm",
  platform: "neutral",
  // platform "neutral" sets no main fields; packages that only have "main" must still resolve.
  mainFields: ["module", "main"],
  external: ["zod", "zod/*", ...builtinModules, "node:*"],
  write: false,
  metafile: true,
  logLevel: "silent",
};

export async function bundleSize(entry) {
  return measure({ entryPoints: [entry] }, relative(process.cwd(), entry));
}

async function measure(input, entry) {
  const result = await build({ ...options, ...input });
  const code = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const byPackage = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const key = match ? match[1] : "@agentry/core (dist)";
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  const topInputs = [...byPackage]
    .map(([path, bytes]) => ({ path, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6);
  return {
    entry,
    minKB: code.length / 1024,
    gzipKB: gzipSync(code, { level: 9 }).length / 1024,
    topInputs,
  };
}

/**
 * The `ai` package's ESM entry (what `import "ai"` loads from `dir`), measured like the core.
 * `dir` defaults to bench/ (its installed `ai` 6.x); issue 28's ratios (0.36x, 0.48x) were taken
 * against `ai` 7, which bench/ cannot install on Node 20: pass a directory where it is installed.
 */
export async function aiBundleSize(dir = here) {
  return measure(
    { stdin: { contents: 'export * from "ai";', resolveDir: dir } },
    `ai (from ${relative(process.cwd(), dir) || "."})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  //   node lib/bundle-size.mjs [--ai-dir=<dir with another ai installed>]...
  const dirs = process.argv.filter((a) => a.startsWith("--ai-dir=")).map((a) => a.slice("--ai-dir=".length));
  const agentry = await bundleSize(join(here, "..", "..", "dist", "index.js"));
  const ai = [];
  for (const dir of dirs.length ? dirs : [here]) ai.push(await aiBundleSize(dir));
  const ratios = Object.fromEntries(ai.map((a) => [a.entry, Number((agentry.gzipKB / a.gzipKB).toFixed(3))]));
  console.log(JSON.stringify({ agentry, ai, ratios }, null, 2));
}

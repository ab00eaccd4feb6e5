// Core bundle size: ../dist/index.js bundled with its dependencies (zod external), minified, gzipped,
// and the `ai` package's entry measured with the very same esbuild options in the same run.
//   node lib/bundle-size.mjs            (prints JSON: agentry, ai, ratio)
import { builtinModules } from "node:module";
import { gzipSync } from "node:zlib";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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
  const result = await build({ ...options, entryPoints: [entry] });
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
    entry: relative(process.cwd(), entry),
    minKB: code.length / 1024,
    gzipKB: gzipSync(code, { level: 9 }).length / 1024,
    topInputs,
  };
}

/** The installed `ai` package's ESM entry (what `import "ai"` loads), measured like the core. */
export async function aiBundleSize() {
  return bundleSize(fileURLToPath(import.meta.resolve("ai")));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const here = dirname(fileURLToPath(import.meta.url));
  const agentry = await bundleSize(join(here, "..", "..", "dist", "index.js"));
  const ai = await aiBundleSize();
  console.log(JSON.stringify({ agentry, ai, ratio: agentry.gzipKB / ai.gzipKB }, null, 2));
}

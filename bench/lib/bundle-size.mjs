// Core bundle size: ../dist/index.js bundled with its dependencies (zod external), minified, gzipped.
//   node lib/bundle-size.mjs            (prints JSON)
import { gzipSync } from "node:zlib";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export async function bundleSize(entry) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    // platform "neutral" sets no main fields; packages that only have "main" must still resolve.
    mainFields: ["module", "main"],
    external: ["zod", "zod/*"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const here = dirname(fileURLToPath(import.meta.url));
  console.log(JSON.stringify(await bundleSize(join(here, "..", "..", "dist", "index.js")), null, 2));
}

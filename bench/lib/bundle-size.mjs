// Core bundle size: ../dist/index.js bundled with its dependencies (zod external), minified, gzipped,
// and the `ai` package's entry measured with the very same esbuild options in the same run.
//   node lib/bundle-size.mjs [--ai-dir=<dir>]...   (prints JSON: agentry, each ai, the ratios)
//
// Code splitting is on, as in the package's own ESM build: what an `import` of the entry loads is
// the entry chunk and the chunks it imports statically (`static`, the measure); chunks reached only
// through a dynamic `import()` (none in the core, whose runtime imports everything statically; `ai`
// has some) are listed apart (`lazy`, each with the modules it holds). `all` is both.
import { builtinModules } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

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
  splitting: true,
  // Nothing is written: the output directory only names the chunks.
  outdir: join(here, ".bundle-size-out"),
  write: false,
  metafile: true,
  logLevel: "silent",
};

export async function bundleSize(entry) {
  return measure({ entryPoints: [entry] }, relative(process.cwd(), entry));
}

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const kb = (bytes) => Number((bytes / 1024).toFixed(1));

async function measure(input, entry) {
  const result = await build({ ...options, ...input });
  const outputs = result.metafile.outputs;
  const files = new Map(result.outputFiles.map((f) => [relative(process.cwd(), f.path), f.contents]));
  const entryKey = Object.keys(outputs).find((key) => outputs[key].entryPoint !== undefined && key.endsWith(".js"));
  // The static graph: the entry chunk and every chunk reached from it by import statements.
  const loaded = new Set();
  const visit = (key) => {
    if (loaded.has(key)) return;
    loaded.add(key);
    for (const i of outputs[key].imports) if (i.kind === "import-statement" && !i.external) visit(i.path);
  };
  visit(entryKey);
  const jsKeys = Object.keys(outputs).filter((key) => key.endsWith(".js"));
  const size = (keys) => {
    const min = keys.reduce((sum, key) => sum + files.get(key).length, 0);
    // Each chunk is a file of its own, downloaded (and compressed) on its own.
    const gzip = keys.reduce((sum, key) => sum + gz(files.get(key)), 0);
    return { chunks: keys.length, minKB: min / 1024, gzipKB: gzip / 1024 };
  };
  const staticSize = size([...loaded]);
  const lazy = jsKeys
    .filter((key) => !loaded.has(key))
    .map((key) => ({
      chunk: key.split("/").pop(),
      minKB: kb(files.get(key).length),
      gzipKB: kb(gz(files.get(key))),
      modules: sourcesOf(Object.keys(outputs[key].inputs)),
    }));
  return {
    entry,
    minKB: staticSize.minKB,
    gzipKB: staticSize.gzipKB,
    staticChunks: staticSize.chunks,
    all: size(jsKeys),
    lazy,
    topInputs: topInputs(outputs, loaded),
  };
}

/** The largest packages of the static graph (minified bytes; our own code as one). */
function topInputs(outputs, loaded) {
  const byPackage = new Map();
  for (const key of loaded)
    for (const [path, { bytesInOutput }] of Object.entries(outputs[key].inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const name = match ? match[1] : "@agentry/core (dist)";
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  return [...byPackage]
    .map(([path, bytes]) => ({ path, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6);
}

/**
 * The source modules (src/…) a lazy chunk holds, read from the source maps of the dist files it
 * bundles; an input without a map (`ai`'s files, a package) is named as it is.
 */
function sourcesOf(inputs) {
  const modules = [];
  for (const input of inputs) {
    const map = resolve(process.cwd(), `${input}.map`);
    if (!existsSync(map)) {
      modules.push(input);
      continue;
    }
    const { sources } = JSON.parse(readFileSync(map, "utf8"));
    for (const source of sources) {
      const path = relative(root, resolve(dirname(map), source));
      if (path.startsWith("src/")) modules.push(path);
    }
  }
  return [...new Set(modules)];
}

/**
 * The `ai` package's ESM entry (what `import "ai"` loads from `dir`), measured like the core.
 * `dir` defaults to bench/ (its installed `ai` 6.x); issue 28's ratios (0.36x, 0.48x) were taken
 * against `ai` 7, which bench/ cannot install on Node 20: pass a directory where it is installed.
 */
export async function aiBundleSize(dir = here) {
  return measure(
    { stdin: { contents: 'export * from "ai";', resolveDir: dir, sourcefile: "ai-entry.js" } },
    `ai (from ${relative(process.cwd(), dir) || "."})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  //   node lib/bundle-size.mjs [--ai-dir=<dir with another ai installed>]...
  const dirs = process.argv.filter((a) => a.startsWith("--ai-dir=")).map((a) => a.slice("--ai-dir=".length));
  const agentry = await bundleSize(join(root, "dist", "index.js"));
  const ai = [];
  for (const dir of dirs.length ? dirs : [here]) ai.push(await aiBundleSize(dir));
  // The ratio is the static graph's (what `import` loads); `allRatios` counts the lazy chunks too.
  const ratio = (a, b) => Number((a / b).toFixed(3));
  const ratios = Object.fromEntries(ai.map((a) => [a.entry, ratio(agentry.gzipKB, a.gzipKB)]));
  const allRatios = Object.fromEntries(ai.map((a) => [a.entry, ratio(agentry.all.gzipKB, a.all.gzipKB)]));
  console.log(JSON.stringify({ agentry, ai, ratios, allRatios }, null, 2));
}

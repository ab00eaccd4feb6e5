// Cold import of `@agentry/core` vs `ai` (Vercel AI SDK 6), each from its own clean install,
// with zod already loaded on both sides (zod is a peer the host imports anyway).
//
//   npm run build && node bench/cold-import.mjs [--runs=15] [--keep]
//
// Packs this repository (`npm pack`), installs the tarball + zod in one temp dir and `ai@6` + zod
// in another (`npm install` from the registry: run by hand, not in CI), then spawns fresh Node
// processes, interleaved, N per case:
//   zod           `await import("zod")` alone
//   zod + <sdk>   `await import("zod")`, then `await import("<sdk>")`
// Each child reports the wall time of its imports (performance.now() around them, so process
// start-up is left out); the parent also times the whole spawn. Medians are printed as a table.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const runs = Number(option("runs") ?? 15);
const keep = process.argv.includes("--keep");
const log = (line) => process.stderr.write(line + "\n");

function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function cleanInstall(label, packages) {
  const dir = mkdtempSync(join(tmpdir(), `cold-${label}-`));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `cold-${label}`, private: true, type: "module" }));
  log(`installing ${packages.join(" ")} in ${dir}`);
  npm(["install", "--no-audit", "--no-fund", "--ignore-scripts", ...packages], dir);
  return dir;
}

const work = mkdtempSync(join(tmpdir(), "cold-pack-"));
log("packing @agentry/core (dist/ must be built)");
const tarball = join(work, JSON.parse(npm(["pack", "--json", "--pack-destination", work], root))[0].filename);
const dirs = {
  agentry: cleanInstall("agentry", [tarball, "zod@^4"]),
  ai: cleanInstall("ai", ["ai@6", "zod@^4"]),
};

// The child prints the time of each import in turn (laps), so the SDK's own import after zod is
// measured inside one process as well as by subtracting the medians of two cases.
const probe = (specifiers) =>
  `const laps=[];let t=performance.now();${specifiers.map((s) => `await import(${JSON.stringify(s)});laps.push(performance.now()-t);t=performance.now();`).join("")}` +
  `process.stdout.write(JSON.stringify(laps));`;

function sample(cwd, specifiers) {
  const started = performance.now();
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe(specifiers)], {
    cwd,
    encoding: "utf8",
  });
  const wall = performance.now() - started;
  if (result.status !== 0) throw new Error(`import ${specifiers.join(", ")} failed: ${result.stderr.slice(0, 500)}`);
  const laps = JSON.parse(result.stdout);
  return { inProcess: laps.reduce((a, b) => a + b, 0), last: laps[laps.length - 1], wall };
}

const cases = [
  { label: "zod alone (Agentry install)", cwd: dirs.agentry, specifiers: ["zod"] },
  { label: "zod alone (ai install)", cwd: dirs.ai, specifiers: ["zod"] },
  { label: "zod + @agentry/core", cwd: dirs.agentry, specifiers: ["zod", "@agentry/core"] },
  { label: "zod + ai", cwd: dirs.ai, specifiers: ["zod", "ai"] },
];
const samples = cases.map(() => ({ inProcess: [], last: [], wall: [] }));
for (const c of cases) sample(c.cwd, c.specifiers); // warm the file cache once
for (let i = 0; i < runs; i++) {
  cases.forEach((c, j) => {
    const s = sample(c.cwd, c.specifiers);
    samples[j].inProcess.push(s.inProcess);
    samples[j].last.push(s.last);
    samples[j].wall.push(s.wall);
  });
}
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const m = samples.map((s) => ({ inProcess: median(s.inProcess), last: median(s.last), wall: median(s.wall) }));
const over = (withSdk, zodOnly) => ({
  inProcess: m[withSdk].inProcess - m[zodOnly].inProcess,
  wall: m[withSdk].wall - m[zodOnly].wall,
});
const core = over(2, 0);
const ai = over(3, 1);
const f = (x) => x.toFixed(1);
console.log(`Cold import, median of ${runs} fresh processes per case (Node ${process.version}); ms.\n`);
console.log("| case | imports (in process) | whole process |");
console.log("|---|---:|---:|");
cases.forEach((c, j) => console.log(`| ${c.label} | ${f(m[j].inProcess)} | ${f(m[j].wall)} |`));
console.log(`| **@agentry/core over zod** | **${f(core.inProcess)}** | ${f(core.wall)} |`);
console.log(`| **ai over zod** | **${f(ai.inProcess)}** | ${f(ai.wall)} |`);
console.log(`| core / ai | ${f(core.inProcess / ai.inProcess)} | ${f(core.wall / ai.wall)} |`);
console.log(`\nThe SDK's own import, timed after zod's in the same process (median of ${runs}):\n`);
console.log("| import after zod | ms |");
console.log("|---|---:|");
console.log(`| @agentry/core | ${f(m[2].last)} |`);
console.log(`| ai | ${f(m[3].last)} |`);
console.log(`| core / ai | ${(m[2].last / m[3].last).toFixed(2)} |`);
if (!keep) for (const dir of [work, ...Object.values(dirs)]) rmSync(dir, { recursive: true, force: true });
else log(`kept: ${work} ${Object.values(dirs).join(" ")}`);

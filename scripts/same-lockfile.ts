// Exits 1 when two package-lock.json files differ in anything but other platforms' optional
// packages. npm 11 adds or leaves out those entries (rollup's and esbuild's native builds)
// depending on what its cache holds; they do not change what installs on this platform.
//   npx tsx scripts/same-lockfile.ts <before> <after>
import { readFileSync } from "node:fs";

interface LockEntry {
  optional?: boolean;
  os?: string[];
  cpu?: string[];
}

const platformOnly = (entry: LockEntry) =>
  entry.optional === true && (entry.os !== undefined || entry.cpu !== undefined);

function comparable(path: string): string {
  const lock = JSON.parse(readFileSync(path, "utf8")) as { packages?: Record<string, LockEntry> };
  const packages = Object.entries(lock.packages ?? {}).filter(([, entry]) => !platformOnly(entry));
  return JSON.stringify({ ...lock, packages: Object.fromEntries(packages) });
}

const [before, after] = process.argv.slice(2);
if (before === undefined || after === undefined) {
  console.error("usage: npx tsx scripts/same-lockfile.ts <before> <after>");
  process.exit(2);
}
process.exit(comparable(before) === comparable(after) ? 0 : 1);

// Summarises a V8 .cpuprofile: top functions by self time.
//   node lib/profile-top.mjs <file.cpuprofile> [--filter=substring-of-url] [--top=25]
import { readFileSync } from "node:fs";

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error("usage: node lib/profile-top.mjs <file.cpuprofile> [--filter=/dist/] [--top=25]");
  process.exit(1);
}
const option = (name, fallback) => rest.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const filter = option("filter", "");
const top = Number(option("top", "25"));

const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
const rows = new Map();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const url = callFrame.url.replace(/^file:\/\//, "");
  const key = `${callFrame.functionName || "(anonymous)"}  ${url.split("/").slice(-2).join("/")}:${callFrame.lineNumber + 1}`;
  const row = rows.get(key) ?? { key, url, us: 0 };
  row.us += us;
  rows.set(key, row);
}
const sorted = [...rows.values()].filter((row) => row.url.includes(filter)).sort((a, b) => b.us - a.us);
const filteredUs = sorted.reduce((a, row) => a + row.us, 0);
console.log(
  `total ${(totalUs / 1000).toFixed(1)} ms sampled; ${filter ? `"${filter}": ${(filteredUs / 1000).toFixed(1)} ms (${((100 * filteredUs) / totalUs).toFixed(1)}%)` : ""}`,
);
console.log("self ms   % of total  function  file:line");
for (const row of sorted.slice(0, top)) {
  console.log(
    `${(row.us / 1000).toFixed(1).padStart(7)}  ${((100 * row.us) / totalUs).toFixed(1).padStart(6)}%   ${row.key}`,
  );
}

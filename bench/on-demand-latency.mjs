// The added latency of the runtime's on-demand chunk (dist/on-demand-*.js: tasks, what the agent
// tools do, deciding approvals, ...): in a fresh process per run, the first `runtime.tasks.list()`
// (which loads the chunk) against the second (loaded), for the ESM and the CommonJS build.
//   node bench/on-demand-latency.mjs [--runs=15]        (after npm run build; prints JSON)
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.slice("--runs=".length) ?? 15);

const program = (load) => `(async () => {
const core = ${load};
const runtime = core.createAgentRuntime({
  registry: core.createAgentRegistry([{ agentId: "a", displayName: "A" }]),
  store: new core.MemorySessionStore(),
  providers: {},
});
let t = performance.now();
await runtime.tasks.list();
const first = performance.now() - t;
t = performance.now();
await runtime.tasks.list();
console.log(JSON.stringify({ first, loaded: performance.now() - t }));
})();`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const measure = (load, type) => {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, [`--input-type=${type}`, "-e", program(load)], { encoding: "utf8" });
    samples.push(JSON.parse(out.trim().split("\n").at(-1)));
  }
  const added = samples.map((s) => s.first - s.loaded);
  return {
    runs,
    firstCallMs: Number(median(samples.map((s) => s.first)).toFixed(2)),
    loadedCallMs: Number(median(samples.map((s) => s.loaded)).toFixed(3)),
    addedMs: {
      median: Number(median(added).toFixed(2)),
      min: Number(Math.min(...added).toFixed(2)),
      max: Number(Math.max(...added).toFixed(2)),
    },
  };
};

console.log(
  JSON.stringify(
    {
      esm: measure(`await import(${JSON.stringify(join(dist, "index.js"))})`, "module"),
      // CommonJS: one file, the on-demand code is in it; its "load" is a resolved promise.
      cjs: measure(`require(${JSON.stringify(join(dist, "index.cjs"))})`, "commonjs"),
    },
    null,
    2,
  ),
);

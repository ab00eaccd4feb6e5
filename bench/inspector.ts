/**
 * The inspector page on a big session: a session of 2,000 turns and 20,000 tree nodes (seeded
 * straight into SQLite), opened in headless Chromium. Measures, per run on a fresh page:
 * - page: from the page's request of `api/sessions/:id` to the first frame of its tree (the page's
 *   own `data-render-ms`: the server reading and building 2,000 trees, the JSON, the render);
 * - navigation: from `page.goto` to the first row on screen (HTML, script, `api/me`, the above).
 * Twice: as the page runs, and with its live stream blocked. Opened at seq 0, the live stream
 * replays the whole log, and the server's reading of it delays the next page's requests.
 *
 *   npx tsx --tsconfig tsconfig.tests.json bench/inspector.ts [--quick]
 *
 * Median of the runs, in ms. Prints a markdown table; not a test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { launchChromium } from "../tests/helpers/chromium.ts";
import { startInspectorApp } from "../tests/inspector/fixtures/inspector-app.ts";
import { NODES_PER_TURN, seedLargeSession } from "../tests/inspector/fixtures/seed-large-session.ts";

const runs = process.argv.includes("--quick") ? 3 : 9;
const TURNS = 2000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const dir = mkdtempSync(join(tmpdir(), "agentry-bench-inspector-"));
const app = await startInspectorApp({ dbPath: join(dir, "agents.db") });
const browser = await launchChromium();
try {
  const sessionId = await seedLargeSession(app.store, { turns: TURNS, agentId: "support", scope: "acme/big" });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addCookies([{ name: "operator", value: "admin", url: app.origin }]);
  const measure = async (withLive: boolean) => {
    const pageMs: number[] = [];
    const navigationMs: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const page = await context.newPage();
      if (!withLive) await page.route("**/live?*", (route) => route.abort());
      const started = performance.now();
      await page.goto(`${app.url}#/session/${sessionId}`);
      await page.waitForSelector('[data-testid="tree"][data-render-ms] [data-testid="tree-row"]');
      const navigation = performance.now() - started;
      const inPage = Number(await page.getAttribute('[data-testid="tree"]', "data-render-ms"));
      await page.close();
      if (run === 0) continue; // warm-up: the first page also builds the page bundle and warms SQLite
      navigationMs.push(navigation);
      pageMs.push(inPage);
    }
    const label = withLive ? "live stream on" : "live stream blocked";
    console.log(`| ${label} | ${runs} | ${median(pageMs).toFixed(0)} | ${median(navigationMs).toFixed(0)} |`);
  };
  console.log(`${TURNS} turns, ${TURNS * NODES_PER_TURN} nodes:\n`);
  console.log(`| page | runs | page: data to first render (median ms) | goto to first row (median ms) |`);
  console.log(`| --- | --- | --- | --- |`);
  await measure(true);
  await measure(false);
} finally {
  await browser.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

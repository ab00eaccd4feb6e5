/**
 * Screenshots of the inspector's main views for the README and guide 07: the session list, a
 * session's execution tree with a tool call's detail open, and the pending approvals. The app is
 * the one the browser tests use (SQLite, a scripted model), in headless Chromium.
 *
 *   npx tsx --tsconfig tsconfig.tests.json scripts/inspector-screenshots.ts   → docs/images/inspector-*.png
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "../tests/helpers/chromium.js";
import { startInspectorApp } from "../tests/inspector/fixtures/inspector-app.js";
import { seedLargeSession } from "../tests/inspector/fixtures/seed-large-session.js";

const images = fileURLToPath(new URL("../docs/images/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentry-inspector-shots-"));
const app = await startInspectorApp({ dbPath: join(dir, "agents.db") });
const browser = await launchChromium();
try {
  const send = (content: string, scope: string) =>
    app.runtime.send({ agentId: "support", content, scope, session: "create" });
  await seedLargeSession(app.store, { turns: 40, agentId: "support", scope: "acme/dana" });
  const lookup = await send("Where is order 42?", "acme/alice");
  await app.runtime.send({
    agentId: "support",
    content: "And order 43?",
    scope: "acme/alice",
    session: lookup.sessionId,
  });
  await send("Please refund order 9, it arrived broken", "acme/bob");
  await send("Refund order 7 please", "globex/carol");
  await send("Where is order 1001?", "globex/erin");
  await send("Can you ask me which carrier to use?", "acme/frank");

  mkdirSync(images, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 1200, height: 720 }, deviceScaleFactor: 1 });
  await context.addCookies([{ name: "operator", value: "admin", url: app.origin }]);
  const page = await context.newPage();

  await page.goto(app.url);
  await page.locator('[data-testid="session-row"]').nth(4).waitFor();
  await page.screenshot({ path: join(images, "inspector-sessions.png") });

  await page.goto(`${app.url}#/session/${lookup.sessionId}`);
  const rows = page.locator('[data-testid="tree-row"]');
  await rows.first().waitFor();
  await rows.first().click();
  await rows.nth(1).click();
  await page.locator('[data-testid="tree-row"][data-kind="tool_call"]').first().click();
  await page.locator('[data-testid="detail-result"]').waitFor();
  await page.screenshot({ path: join(images, "inspector-session.png") });

  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(`${app.url}#/pending`);
  await page.locator('[data-testid="approval"]').nth(1).waitFor();
  await page.screenshot({ path: join(images, "inspector-pending.png") });

  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: join(images, "inspector-pending-dark.png") });
  console.log(`Screenshots written to ${images}`);
} finally {
  await browser.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { startWebChat } from "../../examples/web-chat/server.js";
import { launchChromium } from "../helpers/chromium.js";

const artifacts = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

describe("examples/web-chat in headless Chromium", () => {
  let app: Awaited<ReturnType<typeof startWebChat>>;
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), "agentry-web-chat-"));

  beforeAll(async () => {
    app = await startWebChat({ port: 0, dbPath: join(dir, "chat.db"), provider: undefined });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("plans a task, takes the plan approval, fans out into nested cards, takes a tool approval and an answer, and rebuilds after reload", async () => {
    expect(app.provider).toBe("scripted (offline)");
    const page = await browser.newPage({ viewport: { width: 1100, height: 1300 } });
    await page.goto(app.url);
    await page.waitForSelector("body[data-ready]");
    await page.fill('[data-testid="input"]', "Compare Lisbon, Oslo and Kyoto for a weekend trip");
    await page.click('[data-testid="send"]');
    const taskStatus = () => page.locator('[data-testid="task-status"]').getAttribute("data-status");

    // The planner submits a plan (create_artifact → plan_ready); the task waits for review.
    const plans = page.locator('[data-testid="plan-card"]');
    await plans.first().waitFor({ timeout: 30_000 });
    expect(await plans.first().innerText()).toMatch(
      /Recommend a weekend city trip[\s\S]*Research Lisbon, Oslo and Kyoto in parallel[\s\S]*Remove the old Oslo draft[\s\S]*Prices change daily/,
    );
    await expect.poll(taskStatus, { timeout: 30_000 }).toBe("awaiting_review");
    // Revise once (the feedback box opens on the first click), then approve the new plan.
    await plans.first().locator('[data-testid="plan-revise"]').click();
    await plans.first().locator("textarea").fill("Ask me before deleting anything.");
    await plans.first().locator('[data-testid="plan-revise"]').click();
    await expect.poll(() => plans.count(), { timeout: 30_000 }).toBe(2);
    expect(await plans.first().innerText()).toContain("Sent back: Ask me before deleting anything.");
    const plan = plans.last();
    expect(await plan.innerText()).toContain("Ask before removing the old Oslo draft");
    await expect.poll(taskStatus, { timeout: 30_000 }).toBe("awaiting_review");
    await plan.locator('[data-testid="plan-approve"]').click();
    await expect.poll(taskStatus, { timeout: 30_000 }).toBe("executing");

    // The actor: three parallel sub-tasks at the root, their tool calls nested one level down, collapsed.
    const subtasks = page.locator('[data-testid="tool-card"][data-name="run_subtask"]');
    await expect.poll(() => subtasks.count(), { timeout: 30_000 }).toBe(3);
    expect(await subtasks.locator(":scope > .card-head .card-name").allInnerTexts()).toEqual(
      ["Research Lisbon", "Research Oslo", "Research Kyoto"].map((t) => expect.stringContaining(t)),
    );
    const nested = page.locator('[data-testid="tool-card"][data-depth="1"]');
    await expect.poll(() => nested.count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    const lisbonLookup = page
      .locator('[data-testid="tool-card"][data-name="run_subtask"]', { hasText: "Research Lisbon" })
      .locator('[data-testid="tool-card"][data-name="lookup_city"]');
    await expect.poll(() => lisbonLookup.getAttribute("data-status"), { timeout: 30_000 }).toBe("done");
    expect(await lisbonLookup.evaluate((el) => el.classList.contains("collapsed"))).toBe(true);
    expect(await lisbonLookup.locator(".card-body").isVisible()).toBe(false);
    await lisbonLookup.locator(".card-head").click();
    expect(await lisbonLookup.locator(".card-body").isVisible()).toBe(true);
    expect(await lisbonLookup.locator('[data-testid="card-result"]').innerText()).toContain("24 °C");
    expect(await lisbonLookup.locator(".card-meta").innerText()).toMatch(/\d+(\.\d)? (ms|s)/);

    // The Oslo sub-task's delete_draft waits for approval.
    const approval = page.locator('[data-testid="approval"]');
    await approval.waitFor({ timeout: 30_000 });
    expect(await approval.innerText()).toContain("delete_draft");
    expect(await page.locator('[data-testid="turn-status"]').getAttribute("data-status")).toBe("suspended");
    await approval.locator('[data-testid="approve"]').click();
    await approval.waitFor({ state: "detached", timeout: 30_000 });
    await expect
      .poll(() => page.locator('[data-testid="tool-card"][data-name="delete_draft"]').getAttribute("data-status"), {
        timeout: 30_000,
      })
      .toBe("done");
    expect(await nested.count()).toBe(4);

    // The runtime's ask_user: a question with its options as buttons.
    const question = page.locator('[data-testid="question-card"]');
    await question.waitFor({ timeout: 30_000 });
    expect(await question.innerText()).toContain("Which format should the report use?");
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, "web-chat.png");
    // A viewport as tall as the page, so the fixed composer sits below the content.
    await page.setViewportSize({ width: 1100, height: await page.evaluate(() => document.body.scrollHeight) });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: shot });
    await page.setViewportSize({ width: 1100, height: 1300 });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    await question.locator('[data-testid="answer"]', { hasText: "Detailed table" }).click();

    await expect
      .poll(() => page.locator('[data-testid="turn-status"]').getAttribute("data-status"), { timeout: 30_000 })
      .toBe("complete");
    await expect.poll(taskStatus, { timeout: 30_000 }).toBe("completed");
    expect(await page.locator('[data-testid="assistant-text"]').last().innerText()).toContain("Lisbon wins");
    expect(
      await page.locator('[data-testid="tool-card"][data-name="ask_user"] [data-testid="card-result"]').innerText(),
    ).toContain("table");

    // Reload: the cards come back from the stored state, nested and collapsed as before, with the
    // approved plan and the task's status.
    await page.reload();
    await page.waitForSelector("body[data-connected]");
    await expect.poll(() => subtasks.count(), { timeout: 30_000 }).toBe(3);
    expect(await nested.count()).toBe(4);
    expect(
      await nested.evaluateAll((els) =>
        els.every((el) => el.classList.contains("collapsed") && el.closest('[data-name="run_subtask"]') !== null),
      ),
    ).toBe(true);
    expect(
      await page
        .locator('[data-testid="tool-card"][data-depth="0"]')
        .evaluateAll((els) => els.map((el) => [el.getAttribute("data-name"), el.getAttribute("data-status")])),
    ).toEqual([
      ["create_artifact", "done"],
      ["create_artifact", "done"],
      ["run_subtask", "done"],
      ["run_subtask", "done"],
      ["run_subtask", "done"],
      ["ask_user", "done"],
    ]);
    expect(await plans.count()).toBe(1);
    expect(await plan.innerText()).toMatch(
      /Recommend a weekend city trip[\s\S]*Ask before removing the old Oslo draft[\s\S]*Approved/,
    );
    expect(await plan.locator('[data-testid="plan-approve"]').count()).toBe(0);
    await expect.poll(taskStatus, { timeout: 30_000 }).toBe("completed");
    expect(await page.locator('[data-testid="user-message"]').allInnerTexts()).toEqual([
      "Compare Lisbon, Oslo and Kyoto for a weekend trip",
    ]);
    expect(await page.locator('[data-testid="assistant-text"]').last().innerText()).toContain("Lisbon wins");
    expect(existsSync(shot)).toBe(true);
    await page.close();
  }, 180_000);
});

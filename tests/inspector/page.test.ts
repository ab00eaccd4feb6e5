import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import type { SessionDetailResponse, TreeNode } from "@agentry/core/inspector";
import { launchChromium } from "../helpers/chromium.js";
import { createGate, startInspectorApp, supportRuntime } from "./fixtures/inspector-app.js";
import { NODES_PER_TURN, seedLargeSession } from "./fixtures/seed-large-session.js";

describe("the inspector page in headless Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentry-inspector-page-"));
  const dbPath = join(dir, "agents.db");
  let app: Awaited<ReturnType<typeof startInspectorApp>>;
  let browser: Browser;
  let context: BrowserContext;
  let signedIn: string | undefined;
  const ids = { lookup: "", acmeRefund: "", globexRefund: "" };

  /**
   * A new page signed in as `operator` (or nobody). One browser context for every page (the
   * packaged Chromium runs single-process: closing a context can take the browser down), so
   * the cookie is changed when a page is for another operator, and pages of one test share it.
   */
  async function open(operator: string | undefined, hash = ""): Promise<Page> {
    // Changed only when it differs: a page still loading must not see the cookie gone for a moment.
    if (operator !== signedIn) {
      await context.clearCookies();
      if (operator !== undefined) await context.addCookies([{ name: "operator", value: operator, url: app.origin }]);
      signedIn = operator;
    }
    const page = await context.newPage();
    await page.goto(`${app.url}${hash}`);
    return page;
  }
  const ready = (page: Page) => page.waitForSelector('body[data-ready="true"]');
  const close = (page: Page) => page.close();

  beforeAll(async () => {
    app = await startInspectorApp({ dbPath, livePollMs: 100 });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
    ids.lookup = (
      await app.runtime.send({ agentId: "support", content: "Where is order 42?", scope: "acme/alice" })
    ).sessionId;
    const send = (content: string, scope: string) =>
      app.runtime.send({ agentId: "support", content, scope, session: "create" });
    ids.acmeRefund = (await send("Please refund order 9", "acme/alice")).sessionId;
    ids.globexRefund = (await send("Please refund order 7", "globex/bob")).sessionId;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists sessions newest first, filters them, opens one, expands its tree and shows a node's detail", async () => {
    const page = await open("admin");
    await ready(page);
    const rows = page.locator('[data-testid="session-row"]');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-session-id")))).toEqual([
      ids.globexRefund,
      ids.acmeRefund,
      ids.lookup,
    ]);
    await page.selectOption('[data-testid="filter-state"]', "waiting");
    await page.click('[data-testid="apply-filters"]');
    await expect.poll(() => rows.count()).toBe(2);
    await page.selectOption('[data-testid="filter-state"]', "");
    await page.fill('[data-testid="filter-q"]', ids.lookup);
    await page.click('[data-testid="apply-filters"]');
    await expect.poll(() => rows.count()).toBe(1);

    await rows.first().locator("a").click();
    const tree = page.locator('[data-testid="tree-row"]');
    await expect.poll(() => tree.count()).toBe(1);
    expect(await tree.first().innerText()).toContain("Where is order 42?");
    await tree.first().click();
    await expect
      .poll(() => tree.evaluateAll((els) => els.map((el) => el.getAttribute("data-kind"))))
      .toEqual(["turn", "model_call", "model_call"]);
    await tree.nth(1).click(); // the model call that called lookup_order
    const tool = page.locator('[data-testid="tree-row"][data-kind="tool_call"]');
    await tool.waitFor();
    expect(await tool.innerText()).toContain("lookup_order");
    await tool.click();
    const drawer = page.locator('[data-testid="drawer"]');
    await expect.poll(() => drawer.getAttribute("data-kind")).toBe("tool_call");
    await expect.poll(() => page.locator('[data-testid="detail-args"]').innerText()).toContain('"orderId": "42"');
    expect(await page.locator('[data-testid="detail-result"]').innerText()).toContain("shipped");
    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "detached" });

    await tree.nth(1).locator('[data-testid="details"]').click();
    await expect.poll(() => page.locator('[data-testid="detail-system"]').innerText()).toContain("You help customers");
    expect(await page.locator('[data-testid="detail-tools"]').innerText()).toMatch(/lookup_order[\s\S]*refund/);
    await close(page);
  }, 60_000);

  it("approves a pending approval by clicking: the turn resumes, and another operator's click gets 'already decided'", async () => {
    const first = await open("admin", "#/pending");
    const second = await open("admin", "#/pending");
    const card = (page: Page) => page.locator(`[data-testid="approval"]:has(a[href="#/session/${ids.acmeRefund}"])`);
    await card(first).waitFor();
    await card(second).waitFor();
    expect(await card(first).innerText()).toContain("refund");

    await card(first).locator('[data-testid="approve"]').click();
    await expect.poll(() => card(first).locator('[data-testid="outcome"]').innerText()).toMatch(/^Approved/);
    const records = await app.store.load(ids.acmeRefund);
    expect(
      records.some(
        (r) => r.kind === "tool_result" && JSON.stringify(r.result.result).includes("refunded 25 on order 9"),
      ),
    ).toBe(true);
    expect(records.at(-1)).toMatchObject({ kind: "turn", phase: "end", status: "complete" });

    await card(second).locator('[data-testid="approve"]').click();
    await expect.poll(() => card(second).locator('[data-testid="outcome"]').innerText()).toBe("already decided");
    expect(records.filter((r) => r.kind === "tool_result")).toHaveLength(
      (await app.store.load(ids.acmeRefund)).filter((r) => r.kind === "tool_result").length,
    );
    await close(first);
    await close(second);
  }, 60_000);

  it("an operator limited to one tenant neither sees nor acts on another's sessions and approvals", async () => {
    const page = await open("acme");
    await ready(page);
    const rows = page.locator('[data-testid="session-row"]');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-session-id")))).not.toContain(
      ids.globexRefund,
    );

    await page.goto(`${app.url}#/session/${ids.globexRefund}`);
    await page.locator('[data-testid="not-found"]').waitFor();
    await page.goto(`${app.url}#/pending`);
    await page.locator('[data-testid="pending-view"]').waitFor();
    expect(await page.locator('[data-testid="approval"]').count()).toBe(0);

    const [pending] = await app.runtime.pendingApprovals({ sessionId: ids.globexRefund });
    const status = await page.evaluate(async (requestId) => {
      const me = (await (await fetch("api/me")).json()) as { csrfToken: string };
      const response = await fetch(`api/approvals/${requestId}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-agentry-csrf": me.csrfToken },
        body: JSON.stringify({ approved: true }),
      });
      return response.status;
    }, pending!.requestId);
    expect(status).toBe(404);
    expect(await app.runtime.pendingApprovals({ sessionId: ids.globexRefund })).toHaveLength(1);
    await close(page);
  }, 60_000);

  it("a read-only operator sees the pending decisions without the buttons to decide them", async () => {
    const page = await open("viewer", "#/pending");
    await page.locator('[data-testid="approval"]').first().waitFor();
    expect(await page.locator('[data-testid="who"]').innerText()).toContain("read-only");
    expect(await page.locator('[data-testid="approve"], [data-testid="deny"]').count()).toBe(0);
    expect(await page.locator('[data-testid="pending-view"]').innerText()).toContain("You may look but not act.");
    await close(page);
  }, 60_000);

  it("shows the 401 state: nothing for a request without credentials, and the page's own state once they are gone", async () => {
    const anonymous = await open(undefined);
    const response = await anonymous.goto(app.url);
    expect(response?.status()).toBe(401);
    expect(await anonymous.content()).not.toContain(ids.lookup);
    await anonymous.locator('[data-testid="unauthorized"]').waitFor();
    await close(anonymous);

    const page = await open("admin");
    await ready(page);
    await context.clearCookies();
    signedIn = undefined;
    await page.click('nav.top a[href="#/pending"]');
    await page.locator('[data-testid="unauthorized"]').waitFor();
    expect(await page.locator('[data-testid="unauthorized"]').innerText()).toContain("Not authorized");
    await close(page);
  }, 60_000);

  it("updates a running turn live, without moving the rows above it, also when the turn runs in another runtime on the same SQLite file", async () => {
    app.gate.reset();
    const running = app.runtime.send({
      agentId: "support",
      content: "slow lookup",
      scope: "acme/carol",
      session: "create",
    });
    let sessionId = "";
    await expect
      .poll(async () => (sessionId = (await app.store.listSessions({ scope: "acme/carol" }))[0]?.sessionId ?? ""))
      .not.toBe("");
    const page = await open("admin", `#/session/${sessionId}`);
    const turns = page.locator('[data-testid="tree-row"][data-kind="turn"]');
    await expect.poll(() => turns.first().getAttribute("data-status")).toBe("running");
    await expect.poll(() => page.locator('[data-testid="live-state"]').innerText()).toContain("live");
    // The same card (by node id) must stay where it is while the turn runs, ends and another starts.
    const firstTurn = page.locator(
      `[data-testid="tree-row"][data-node-id="${await turns.first().getAttribute("data-node-id")}"]`,
    );
    const before = await firstTurn.boundingBox();
    app.gate.open();
    await running;
    await expect.poll(() => firstTurn.getAttribute("data-status"), { timeout: 10_000 }).toBe("complete");
    expect(await firstTurn.boundingBox()).toEqual(before);

    // A second runtime on its own connection to the file: only the store carries its records.
    const otherStore = new SqliteSessionStore({ path: dbPath });
    const otherGate = createGate();
    const other = supportRuntime(otherStore, otherGate);
    try {
      const next = other.send({ agentId: "support", content: "slow again", scope: "acme/carol", session: sessionId });
      await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(2);
      await expect.poll(() => turns.nth(1).getAttribute("data-status")).toBe("running");
      expect(await turns.nth(1).innerText()).toContain("slow again");
      expect(await firstTurn.boundingBox()).toEqual(before);
      otherGate.open();
      await next;
      await expect.poll(() => turns.nth(1).getAttribute("data-status"), { timeout: 10_000 }).toBe("complete");
    } finally {
      otherGate.open();
      await other.close();
      otherStore.close();
    }
    await close(page);
  }, 60_000);

  it("is usable from the keyboard: Enter opens a card, arrows move, Escape closes the drawer and focus returns", async () => {
    const page = await open("admin", `#/session/${ids.lookup}`);
    const first = page.locator('[data-testid="tree-row"]').first();
    await first.waitFor();
    await page.keyboard.press("Tab"); // the navigation comes first in the focus order
    expect(await page.evaluate(() => document.activeElement?.closest("nav") !== null)).toBe(true);
    await first.focus();
    await page.keyboard.press("Enter");
    expect(await first.getAttribute("aria-expanded")).toBe("true");
    const focused = () =>
      page.evaluate(() => document.activeElement?.getAttribute("data-kind") ?? document.activeElement?.tagName);
    await page.keyboard.press("ArrowDown");
    await expect.poll(focused).toBe("model_call");
    await page.keyboard.press(" ");
    await page.keyboard.press("ArrowDown");
    await expect.poll(focused).toBe("tool_call");
    await page.keyboard.press("Enter");
    await page.locator('[data-testid="drawer"]').waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid")))
      .toBe("drawer-close");
    await page.keyboard.press("Escape");
    await page.locator('[data-testid="drawer"]').waitFor({ state: "detached" });
    await expect.poll(focused).toBe("tool_call");
    await close(page);
  }, 60_000);

  it("renders in dark mode and in light mode (prefers-color-scheme)", async () => {
    const page = await open("admin");
    await ready(page);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const brightness = (color: string) => {
      const [r, g, b] = (color.match(/\d+/g) ?? []).map(Number);
      return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
    };
    await page.emulateMedia({ colorScheme: "dark" });
    expect(brightness(await background())).toBeLessThan(0.2);
    const text = await page.evaluate(() => getComputedStyle(document.querySelector("h1")!).color);
    expect(brightness(text)).toBeGreaterThan(0.7);
    await page.emulateMedia({ colorScheme: "light" });
    expect(brightness(await background())).toBeGreaterThan(0.9);
    await close(page);
  }, 60_000);

  it("downloads a turn as a test file, and shows the cost per scope", async () => {
    const page = await open("admin", `#/session/${ids.lookup}`);
    const download = page.waitForEvent("download");
    await page.locator('[data-testid="tree-row"][data-kind="turn"] [data-testid="export"]').first().click();
    const file = await (await download).path();
    expect(readFileSync(file, "utf8")).toMatch(/from "vitest"[\s\S]*lookup_order/);

    await page.click('nav.top a[href="#/cost"]');
    const costRows = page.locator('[data-testid="cost-row"]');
    await expect
      .poll(() => costRows.allInnerTexts())
      .toEqual(expect.arrayContaining([expect.stringContaining("acme/alice"), expect.stringContaining("globex/bob")]));
    await close(page);
  }, 60_000);

  it("answers a pending question and approves a task's plan from the page", async () => {
    const asked = await app.runtime.send({
      agentId: "support",
      content: "ask me about shipping",
      scope: "acme/dora",
      session: "create",
    });
    expect(asked.status).toBe("suspended");
    const task = await app.runtime.tasks.create({
      agentId: "support",
      content: "Tidy the order notes",
      scope: "acme/dora",
    });
    expect(task.status).toBe("awaiting_review");

    const page = await open("admin", "#/pending");
    const question = page.locator(`[data-testid="question"]:has(a[href="#/session/${asked.sessionId}"])`);
    expect(await question.innerText()).toContain("Which carrier?");
    await question.locator('[data-testid="answer"]', { hasText: "Courier" }).click();
    await expect.poll(() => question.locator('[data-testid="outcome"]').innerText()).toMatch(/^Answered: Courier/);
    expect(await app.runtime.pendingQuestions({ sessionId: asked.sessionId })).toEqual([]);

    await page.click('nav.top a[href="#/tasks"]');
    const card = page.locator(`[data-testid="task"][data-task-id="${task.taskId}"]`);
    expect(await card.getAttribute("data-state")).toBe("awaiting_review");
    expect(await card.locator('[data-testid="plan"]').innerText()).toMatch(
      /tidy the order notes[\s\S]*Read the notes[\s\S]*Merge the duplicates/,
    );
    await card.locator('[data-testid="task-approve"]').click();
    await expect.poll(() => card.locator('[role="status"]').innerText()).toMatch(/^Plan approved/);
    await expect.poll(async () => (await app.runtime.tasks.get(task.taskId))?.status).toBe("completed");

    // A follow-up task whose plan another session carries out: the card links both.
    const followUp = await app.runtime.tasks.create({
      agentId: "support",
      actorAgentId: "support",
      continues: task.taskId,
      content: "Tidy the order notes again",
      scope: "acme/dora",
    });
    await page.reload();
    const linked = page.locator(`[data-testid="task"][data-task-id="${followUp.taskId}"]`);
    expect(await linked.locator('[data-testid="task-links"]').innerText()).toBe(
      `carried out by support · continues ${task.taskId}`,
    );
    await linked.locator('[data-testid="task-approve"]').click();
    await expect.poll(async () => (await app.runtime.tasks.get(followUp.taskId))?.status).toBe("completed");
    const actorSessionId = (await app.runtime.tasks.get(followUp.taskId))!.actorSessionId!;
    await page.reload();
    await expect
      .poll(() => linked.locator('[data-testid="task-links"]').innerText())
      .toBe(`carried out by support in ${actorSessionId} · continues ${task.taskId}`);
    await close(page);
  }, 60_000);

  it("opens a session of 2,000 turns and 20,000 nodes, rendering only the rows in view", async () => {
    const sessionId = await seedLargeSession(app.store, { turns: 2000, agentId: "support", scope: "acme/big" });
    const page = await open("admin", `#/session/${sessionId}`);
    const tree = page.locator('[data-testid="tree"]');
    await tree.waitFor();
    await expect.poll(() => tree.getAttribute("data-render-ms"), { timeout: 30_000 }).not.toBeNull();
    console.log(
      `[inspector] a session of 2,000 turns / 20,000 nodes: first render of the tree ${await tree.getAttribute("data-render-ms")} ms`,
    );
    expect(await tree.getAttribute("data-count")).toBe("2000");
    expect(await page.locator('[data-testid="tree-row"]').count()).toBeLessThan(100);
    const detail = await page.evaluate(
      async (id) => (await (await fetch(`api/sessions/${id}`)).json()) as SessionDetailResponse,
      sessionId,
    );
    const count = (nodes: TreeNode[]): number => nodes.reduce((sum, node) => sum + 1 + count(node.children), 0);
    expect(count(detail.turns)).toBe(2000 * NODES_PER_TURN);

    // Scrolled to the end: the last turn is rendered, and opening it adds its rows.
    await tree.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const last = page.locator('[data-testid="tree-row"][data-kind="turn"]').last();
    await expect.poll(() => last.innerText()).toContain("Where is order 2000?");
    await last.click();
    await expect.poll(() => tree.getAttribute("data-count")).toBe("2003");
    await close(page);
  }, 120_000);

  it("the Pending view follows its own actions: a decided request leaves the list, the chained one appears", async () => {
    const chained = (
      await app.runtime.send({
        agentId: "support",
        content: "Please refund twice order 5",
        scope: "acme/alice",
        session: "create",
      })
    ).sessionId;
    const page = await open("admin", "#/pending");
    const pending = (session: string) =>
      page.locator(`[data-testid="pending-approvals"] [data-testid="approval"]:has(a[href="#/session/${session}"])`);
    await pending(chained).waitFor();
    const first = await pending(chained).getAttribute("data-request-id");
    await pending(chained).locator('[data-testid="approve"]').click();
    // Without Refresh: the first request moved to "Decided here" with its outcome, the second one is listed.
    const decided = page.locator(`[data-testid="decided"] [data-request-id="${first}"]`);
    await expect
      .poll(() => decided.locator('[data-testid="outcome"]').innerText())
      .toMatch(/^Approved \(turn suspended\)/);
    await expect.poll(() => pending(chained).getAttribute("data-request-id")).not.toBe(first);
    expect(await pending(chained).count()).toBe(1);
    const [next] = await app.runtime.pendingApprovals({ sessionId: chained });
    expect(await pending(chained).getAttribute("data-request-id")).toBe(next!.requestId);
    expect(await page.locator('[data-testid="refresh"]').count()).toBe(1);
    await close(page);
  }, 60_000);
});

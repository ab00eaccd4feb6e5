import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, defineTool, MemorySessionStore } from "@agentry/core";
import { toNodeHandler } from "@agentry/core/inspector";
import { createFakeProvider } from "@agentry/core/testing";
import { createChatHandler } from "@agentry/core/ui";
import { launchChromium } from "../helpers/chromium.js";

/** The page's script: a React component on `@ai-sdk/react`'s `useChat`, bundled for the browser. */
async function pageScript(): Promise<string> {
  const built = await build({
    entryPoints: [fileURLToPath(new URL("./fixtures/chat-page.tsx", import.meta.url))],
    bundle: true,
    write: false,
    platform: "browser",
    format: "iife",
    target: "chrome120",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "error",
  });
  return built.outputFiles[0]!.text;
}

describe("createChatHandler behind node:http, driven by useChat (@ai-sdk/react) in headless Chromium", () => {
  const deleted: string[] = [];
  let chatRequests = 0;
  let server: Server;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "assistant", displayName: "Assistant" }]),
      store: new MemorySessionStore(),
      providers: {
        fake: createFakeProvider((request) => {
          const last = request.messages.at(-1)!;
          if (last.role === "tool") return { text: `Done: ${JSON.stringify(last.content[0]!.result)}` };
          return { text: "Deleting it.", toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] };
        }),
      },
      defaultModel: "fake",
      tools: [
        defineTool({
          name: "todo_delete",
          description: "Delete a todo",
          input: z.object({ item: z.string() }),
          requiresApproval: true,
          execute: ({ item }) => (deleted.push(item), `deleted ${item}`),
        }),
      ],
    });
    const chat = toNodeHandler(
      createChatHandler({ runtime, route: () => ({ agentId: "assistant", scope: "browser" }) }),
    );
    const html = `<!doctype html><html><body><div id="root"></div><script>${(await pageScript()).replaceAll("</script", "<\\/script")}</script></body></html>`;
    server = createServer((request, response) => {
      if (request.url === "/api/chat") return void (chatRequests++, chat(request, response));
      response.writeHead(200, { "content-type": "text/html" }).end(html);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("one approval round trip: the card asks, Approve resubmits by itself, the tool runs once and the same message shows its answer", async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(url);
    await page.getByTestId("send").click();
    const approve = page.getByTestId("approve");
    await approve.waitFor({ timeout: 10_000 });
    await page.locator('main[data-status="ready"]').waitFor({ timeout: 10_000 });
    expect(deleted).toEqual([]);
    expect(await page.getByTestId("tool").getAttribute("data-state")).toBe("approval-requested");
    await approve.click();
    await page.getByTestId("text").filter({ hasText: "Done:" }).waitFor({ timeout: 10_000 });
    await page.locator('main[data-status="ready"]').waitFor({ timeout: 10_000 });
    expect(deleted).toEqual(["milk"]);
    expect(chatRequests).toBe(2);
    expect(await page.locator("li").evaluateAll((items) => items.map((i) => (i as HTMLElement).dataset.role))).toEqual([
      "user",
      "assistant",
    ]);
    expect(await page.getByTestId("tool").getAttribute("data-state")).toBe("output-available");
    expect(await page.getByTestId("approve").count()).toBe(0);
    expect(await page.getByTestId("text").allInnerTexts()).toEqual([
      "delete milk",
      "Deleting it.",
      'Done: "deleted milk"',
    ]);
    expect(await page.locator("main").getAttribute("data-error")).toBeNull();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});

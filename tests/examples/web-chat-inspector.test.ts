import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionListResponse } from "@agentry/core/inspector";
import { startWebChat } from "../../examples/web-chat/server.js";

/** A GET with headers fetch will not send as given (Host). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("examples/web-chat: the inspector mounted beside the chat", () => {
  let app: Awaited<ReturnType<typeof startWebChat>>;
  const dir = mkdtempSync(join(tmpdir(), "agentry-web-chat-inspector-"));

  beforeAll(async () => {
    app = await startWebChat({ port: 0, dbPath: join(dir, "chat.db"), provider: undefined });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page and the API at /inspector/ to this machine, next to the chat, over the chat's sessions", async () => {
    const created = await fetch(`${app.url}/api/tasks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: "Compare Lisbon and Oslo" }),
    });
    const { sessionId } = (await created.json()) as { sessionId: string };

    const page = await fetch(`${app.url}/inspector/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain('data-base="/inspector/"');
    const sessions = (await (await fetch(`${app.url}/inspector/api/sessions`)).json()) as SessionListResponse;
    expect(sessions.items.map((row) => row.sessionId)).toContain(sessionId);
    expect((await fetch(`${app.url}/`)).status).toBe(200); // the chat is still there
  });

  it("refuses a request that does not name this machine (a DNS-rebinding page), whatever header it sends", async () => {
    const port = new URL(app.url).port;
    const foreign = await get(`${app.url}/inspector/api/sessions`, {
      host: `attacker.example:${port}`,
      "x-web-chat-local-operator": "1",
    });
    expect(foreign.status).toBe(401);
    expect(foreign.body).not.toContain("sessionId");
    expect((await get(`${app.url}/inspector/api/me`, { host: `localhost:${port}` })).status).toBe(200);
  });
});

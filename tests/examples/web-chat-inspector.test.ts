import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startWebChat } from "../../examples/web-chat/server.js";

describe("examples/web-chat: the inspector next to the chat", () => {
  it("serves the inspector's page and API at /inspector/ over the chat's store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentry-web-chat-inspector-"));
    const app = await startWebChat({ port: 0, dbPath: join(dir, "chat.db") });
    try {
      const created = await fetch(`${app.url}/api/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: "Compare Lisbon and Oslo" }),
      });
      const { sessionId } = (await created.json()) as { sessionId: string };
      const page = await fetch(`${app.url}/inspector/`);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      const list = (await (await fetch(`${app.url}/inspector/api/sessions`)).json()) as { items: { sessionId: string }[] };
      expect(list.items.map((row) => row.sessionId)).toContain(sessionId);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";

const repo = join(import.meta.dirname, "..", "..");

/** Spawns the command on `args`; resolves with the URL it prints and the child. */
function startBin(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", join(repo, "src/bin/agentry-inspect.ts"), ...args], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const found = /Agentry inspector: (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`agentry-inspect exited ${code}: ${err}`)));
  });
  return { child, url };
}

describe("agentry-inspect", () => {
  it("serves a SQLite file's sessions on 127.0.0.1, read-only unless --allow-actions", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-inspect-")), "agents.db");
    const store = new SqliteSessionStore({ path });
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "general", displayName: "General" }]),
      store,
      providers: { fake: createFakeProvider([{ text: "hello from the log" }]) },
      defaultModel: "m",
    });
    const turn = await runtime.send({ agentId: "general", content: "hi", scope: "acme/alice" });
    await runtime.close();
    store.close();

    const { child, url } = startBin(["--sqlite", path, "--port", "0"]);
    try {
      const base = await url;
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const list = (await (await fetch(`${base}api/sessions`)).json()) as {
        items: { sessionId: string; lastSnippet?: string }[];
      };
      expect(list.items.map((row) => row.sessionId)).toEqual([turn.sessionId]);
      expect(list.items[0]!.lastSnippet).toBe("hello from the log");
      const me = (await (await fetch(`${base}api/me`)).json()) as { canAct: boolean };
      expect(me.canAct).toBe(false);
      // A request naming another host (DNS rebinding) is refused.
      const rebound = await new Promise<number>((resolve, reject) => {
        get(`${base}api/sessions`, { headers: { host: "evil.example" } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).once("error", reject);
      });
      expect(rebound).toBe(403);
    } finally {
      child.kill("SIGTERM");
    }
  }, 60_000);

  it("decides through the host's runtime given with --app (--allow-actions needs it)", async () => {
    const refused = startBin(["--sqlite", "x.db", "--allow-actions", "--port", "0"]);
    await expect(refused.url).rejects.toThrow(/--allow-actions needs --app/);

    const path = join(mkdtempSync(join(tmpdir(), "agentry-inspect-app-")), "agents.db");
    const fixture = join(repo, "tests/bin/fixtures/app-runtime.ts");
    const { child, url } = startBin(["--app", fixture, "--allow-actions", "--port", "0"], { AGENTRY_TEST_DB: path });
    try {
      const base = await url;
      const origin = base.slice(0, -1);
      const me = (await (await fetch(`${base}api/me`)).json()) as { canAct: boolean; csrfToken: string };
      expect(me.canAct).toBe(true);
      // The app (another process) asks; the inspector's process decides through the app's runtime.
      process.env.AGENTRY_TEST_DB = path;
      const app = await import("./fixtures/app-runtime.js");
      const asked = await app.runtime.send({ agentId: "todo", content: "delete milk" });
      await app.runtime.close();
      const requestId = asked.pendingApprovals![0]!.requestId;
      const headers = { "content-type": "application/json", "x-agentry-csrf": me.csrfToken, origin };
      const decide = () =>
        fetch(`${base}api/approvals/${requestId}`, {
          method: "POST",
          headers,
          body: JSON.stringify({ approved: true }),
        });
      expect((await decide()).status).toBe(200);
      expect((await decide()).status).toBe(409);
      expect(readFileSync(`${path}.deleted`, "utf8")).toBe("milk\n");
    } finally {
      child.kill("SIGTERM");
    }
  }, 60_000);

  it("refuses to start without a store", async () => {
    const { url } = startBin(["--port", "0"]);
    await expect(url).rejects.toThrow(/usage: agentry-inspect/);
  }, 60_000);
});

import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";

const repo = join(import.meta.dirname, "..", "..");

/** Spawns the command on `args`; resolves with the URL it prints and the child. */
function startBin(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", join(repo, "src/bin/agentry-inspect.ts"), ...args], {
    cwd: repo,
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
      const list = (await (await fetch(`${base}api/sessions`)).json()) as { items: { sessionId: string; lastSnippet?: string }[] };
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

  it("refuses to start without a store", async () => {
    const { url } = startBin(["--port", "0"]);
    await expect(url).rejects.toThrow(/usage: agentry-inspect/);
  }, 60_000);
});

import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { databaseUrl, freshSchema, requireDatabase } from "../postgres/database.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Starts `examples/workers/<file>` as a user would (tsx), offline; resolves once it printed `ready`. */
function start(
  file: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(OPENAI|ANTHROPIC)_/.test(key)),
  ) as Record<string, string>;
  const child = spawn(process.execPath, ["--import", "tsx", `examples/workers/${file}`], {
    cwd: root,
    env: { ...clean, ...env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`${file} exited (${code}): ${err.slice(-2000)}`)));
  });
}

describe("examples/workers: an HTTP front and two worker processes on one database", { timeout: 180_000 }, () => {
  if (!requireDatabase()) return;
  const children: ChildProcess[] = [];
  const schema = freshSchema();
  const env = { DATABASE_URL: databaseUrl!, AGENTRY_SCHEMA: schema, PGBOSS_SCHEMA: `${schema}_boss`, PORT: "0" };
  afterAll(async () => {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(
      children.map(
        (child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.on("exit", resolve))),
      ),
    );
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS "${schema}_boss" CASCADE`);
    await client.end();
  });

  it("chats through the front (events streamed from a worker), and an approval given at the front resumes the turn on a worker", async () => {
    const workers = await Promise.all(
      ["a", "b"].map((name) => start("worker.ts", { ...env, WORKER_NAME: name }, /ready/)),
    );
    children.push(...workers.map((w) => w.child));
    const front = await start("front.ts", env, /front listening on (\d+)/);
    children.push(front.child);
    const base = `http://127.0.0.1:${front.match[1]}`;

    const chat = async (content: string, sessionId?: string) => {
      const response = await fetch(`${base}/chat`, {
        method: "POST",
        body: JSON.stringify({ content, ...(sessionId && { sessionId }) }),
      });
      expect(response.status).toBe(200);
      return (await response.text())
        .trim()
        .split("\n")
        .map(
          (line) => JSON.parse(line) as { type: string; result?: { status: string; text: string; sessionId: string } },
        );
    };
    const events = await chat("add milk");
    const done = events.at(-1)!;
    expect(done.type).toBe("done");
    expect(done.result).toMatchObject({ status: "complete" });
    expect(done.result!.text).toMatch(/added milk \(on [ab]\)/);
    expect(events.map((e) => e.type)).toContain("tool_call_update");

    const asked = (await chat("remove milk", done.result!.sessionId)).at(-1)!;
    expect(asked.result).toMatchObject({ status: "suspended" });
    const pending = (await (await fetch(`${base}/approvals`)).json()) as { requestId: string; tool: string }[];
    expect(pending.map((p) => p.tool)).toEqual(["remove_item"]);
    const resolved = await fetch(`${base}/approvals/${pending[0]!.requestId}`, {
      method: "POST",
      body: JSON.stringify({ approved: true }),
    });
    expect(await resolved.json()).toMatchObject({ status: "complete", text: expect.stringMatching(/removed milk/) });
    const again = await fetch(`${base}/approvals/${pending[0]!.requestId}`, {
      method: "POST",
      body: JSON.stringify({ approved: true }),
    });
    expect(again.status).toBe(409);
  });
});

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidArgumentError, SessionStoreError } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { runSessionStoreContract } from "@agentry/core/testing";
import { statementSql } from "../../src/sqlite/sqlite-statements.js";
import { text } from "../helpers/store-records.js";

const dirs: string[] = [];
const newFile = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), "agentry-sqlite-"));
  dirs.push(dir);
  return join(dir, "sessions.db");
};
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const paths = new WeakMap<object, string>();
const storeOnFile = async (): Promise<SqliteSessionStore> => {
  const path = await newFile();
  const store = new SqliteSessionStore({ path });
  paths.set(store, path);
  return store;
};
runSessionStoreContract("SqliteSessionStore (file)", storeOnFile, {
  // Another connection to the same file, as another process has.
  sibling: (store) => new SqliteSessionStore({ path: paths.get(store)! }),
});
runSessionStoreContract("SqliteSessionStore (:memory:)", () => new SqliteSessionStore({ path: ":memory:" }), {
  // A second store object on the same connection (an in-memory database has no other).
  sibling: (store) => new SqliteSessionStore({ database: (store as SqliteSessionStore).database }),
});

describe("SqliteSessionStore", () => {
  it("switches a file database to WAL and creates its tables", async () => {
    const path = await newFile();
    const store = new SqliteSessionStore({ path });
    expect(store.database.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = store.database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      "agentry_approvals",
      "agentry_lease_waiters",
      "agentry_leases",
      "agentry_records",
      "agentry_sessions",
      "agentry_signals",
      // SQLite's own, for the signals' AUTOINCREMENT ids (never reused, so a reader's last id stays valid).
      "sqlite_sequence",
    ]);
    store.close();
    expect(store.database.open).toBe(false);
  });

  it("adds the scope column to a file made before scopes existed; its sessions are unscoped", async () => {
    const path = await newFile();
    const old = new Database(path);
    old.exec(`CREATE TABLE agentry_sessions (session_id TEXT PRIMARY KEY NOT NULL, agent_id TEXT NOT NULL, name TEXT, pinned_at TEXT,
      attributes TEXT, last_snippet TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, touch INTEGER NOT NULL, last_seq INTEGER NOT NULL DEFAULT 0)`);
    old
      .prepare(
        "INSERT INTO agentry_sessions (session_id, agent_id, created_at, updated_at, touch) VALUES ('old', 'a', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', 1)",
      )
      .run();
    old.close();
    const store = new SqliteSessionStore({ path });
    expect((await store.listSessions({ scope: null })).map((s) => s.sessionId)).toEqual(["old"]);
    const scoped = await store.createSession({ agentId: "a", scope: "user-1" });
    expect((await store.listSessions({ scope: "user-1" })).map((s) => s.sessionId)).toEqual([scoped.sessionId]);
    store.close();
  });

  it("reads back what another connection wrote after reopening the file", async () => {
    const path = await newFile();
    const first = new SqliteSessionStore({ path });
    const session = await first.createSession({ agentId: "todo", name: "Groceries", attributes: { list: "home" } });
    const stored = await first.append(session.sessionId, [text("m1", "milk"), text("m2", "eggs")]);
    await first.clear(session.sessionId);
    first.close();
    const reopened = new SqliteSessionStore({ path });
    expect(await reopened.getSession(session.sessionId)).toEqual(await reopened.listSessions().then((all) => all[0]));
    expect((await reopened.getSession(session.sessionId))?.name).toBe("Groceries");
    expect((await reopened.load(session.sessionId)).slice(0, 2)).toEqual(stored);
    expect(await reopened.load(session.sessionId, { sinceLastReset: true })).toEqual([]);
    const [next] = await reopened.append(session.sessionId, [text("m1", "duplicate"), text("m4", "bread")]);
    expect(next).toEqual(stored[0]);
    expect((await reopened.load(session.sessionId)).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    reopened.close();
  });

  it("two stores on one file share sessions and interleave appends to one session without gaps", async () => {
    const path = await newFile();
    const a = new SqliteSessionStore({ path });
    const b = new SqliteSessionStore({ path });
    const { sessionId } = await a.createSession({ agentId: "todo" });
    expect((await b.getSession(sessionId))?.agentId).toBe("todo");
    await Promise.all(
      Array.from({ length: 40 }, (_, n) => (n % 2 === 0 ? a : b).append(sessionId, [text(`m${n}`, `${n}`)])),
    );
    const loaded = await b.load(sessionId);
    expect(loaded.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, n) => n + 1));
    const other = await b.createSession({ agentId: "todo" });
    await a.updateSession(sessionId, { name: "touched by a" });
    expect((await b.listSessions({ agentId: "todo" })).map((s) => s.sessionId)).toEqual([sessionId, other.sessionId]);
    await b.deleteSession(sessionId);
    expect(await a.getSession(sessionId)).toBeUndefined();
    a.close();
    b.close();
  });

  // Two children started through tsx take seconds each on a loaded machine: explicit, generous limits.
  it(
    "two processes appending to one session at once get seq 1..n with no gaps or duplicates",
    { timeout: 150_000 },
    async () => {
      const path = await newFile();
      const store = new SqliteSessionStore({ path });
      const { sessionId } = await store.createSession({ agentId: "todo" });
      const source = fileURLToPath(new URL("../../src/sqlite/sqlite-session-store.ts", import.meta.url));
      const script = join(path, "..", "writer.mts");
      await writeFile(
        script,
        `import { SqliteSessionStore } from ${JSON.stringify(source)};
const [path, sessionId, name] = process.argv.slice(2);
const store = new SqliteSessionStore({ path });
for (let n = 0; n < 150; n++) {
  await store.append(sessionId, [{ id: name + n, kind: "message", frame: null, message: { role: "user", content: name } }]);
}
store.close();`,
      );
      const run = (name: string) =>
        promisify(execFile)(process.execPath, ["--import", "tsx", script, path, sessionId, name], { timeout: 120_000 });
      await Promise.all([run("a"), run("b")]);
      const loaded = await store.load(sessionId);
      expect(loaded.map((r) => r.seq)).toEqual(Array.from({ length: 300 }, (_, n) => n + 1));
      expect(new Set(loaded.map((r) => r.id)).size).toBe(300);
      for (const name of ["a", "b"]) {
        const own = loaded.filter((r) => r.id.startsWith(name)).map((r) => Number(r.id.slice(1)));
        expect(own).toEqual(Array.from({ length: 150 }, (_, n) => n));
      }
      store.close();
    },
  );

  it("uses a caller's database without closing it, with a custom table prefix", async () => {
    const database = new Database(await newFile());
    const store = new SqliteSessionStore({ database, tablePrefix: "chat_" });
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(sessionId, [text("m1", "hi")]);
    store.close();
    expect(database.open).toBe(true);
    expect(database.prepare("SELECT COUNT(*) FROM chat_records").pluck().get()).toBe(1);
    database.close();
  });

  it("rejects a bad table prefix and reports database failures as SessionStoreError", async () => {
    expect(() => new SqliteSessionStore({ path: ":memory:", tablePrefix: "x; DROP TABLE" })).toThrow(
      expect.objectContaining({ name: "InvalidArgumentError" }),
    );
    const store = new SqliteSessionStore({ path: ":memory:" });
    store.database.exec("DROP TABLE agentry_records");
    const { sessionId } = await store.createSession({ agentId: "a" });
    const error = await store.load(sessionId).catch((e: unknown) => e);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect(InvalidArgumentError.isInstance(error)).toBe(false);
    store.close();
  });
});

describe("SqliteSessionStore scopePrefix", () => {
  it("is a range of the scope index, for sessions and pending approvals (EXPLAIN QUERY PLAN)", () => {
    const store = new SqliteSessionStore({ path: ":memory:" });
    const sql = statementSql("agentry_");
    const plan = (name: keyof typeof sql, ...values: unknown[]) =>
      (
        store.database.prepare(`EXPLAIN QUERY PLAN ${sql[name].replace(" -- pluck", "")}`).all(...values) as {
          detail: string;
        }[]
      )
        .map((row) => row.detail)
        .join("\n");
    expect(plan("listPrefixSessions", "acme/", "acme0", 10)).toMatch(
      /SEARCH agentry_sessions USING INDEX agentry_sessions_by_scope \(scope>\? AND scope<\?\)/,
    );
    expect(plan("listPrefixAgentSessions", "acme/", "acme0", "a", 10)).toMatch(
      /USING INDEX agentry_sessions_by_scope_agent \(scope>\? AND scope<\?\)/,
    );
    expect(plan("pendingPrefix", "acme/", "acme0", 10)).toMatch(
      /USING INDEX agentry_approvals_pending \(scope>\? AND scope<\?\)/,
    );
    store.close();
  });

  it("lists by prefix correctly in a UTF-16 database, whose byte order is not code point order", async () => {
    const database = new Database(":memory:");
    database.pragma("encoding = 'UTF-16le'");
    const store = new SqliteSessionStore({ database });
    const scopes = ["a\u00ff/1", "a\u0100/2", "a\u00ff", "b/3"];
    const ids = new Map<string, string>();
    for (const scope of scopes) ids.set(scope, (await store.createSession({ agentId: "x", scope })).sessionId);
    for (const scope of scopes) {
      const { sessionId } = await store.createSession({ agentId: "x", scope });
      await store.append(sessionId, [
        {
          id: "r",
          kind: "approval",
          frame: null,
          request: {
            requestId: `r-${scope}`,
            toolCallId: "c",
            name: "t",
            args: {},
            depth: 0,
            parentId: null,
            reason: "",
          },
        },
      ]);
    }
    const listed = async (scopePrefix: string) =>
      (await store.listSessions({ scopePrefix })).filter((s) => ids.get(s.scope!) === s.sessionId).map((s) => s.scope);
    expect(await listed("a\u00ff")).toEqual(["a\u00ff", "a\u00ff/1"]);
    expect(await listed("a\u0100")).toEqual(["a\u0100/2"]);
    expect(await listed("a")).toEqual(["a\u00ff", "a\u0100/2", "a\u00ff/1"]);
    expect(await store.listSessions({ scopePrefix: "a\u00ff", limit: 1 })).toHaveLength(1);
    expect((await store.listPendingApprovals({ scopePrefix: "a\u00ff" })).map((entry) => entry.requestId)).toEqual([
      "r-a\u00ff/1",
      "r-a\u00ff",
    ]);
    store.close();
    database.close();
  });
});

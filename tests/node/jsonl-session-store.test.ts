import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidArgumentError, SessionNotFoundError, SessionStoreError } from "@agentry/core";
import { JsonlSessionStore } from "@agentry/core/node";
import { runSessionStoreContract } from "@agentry/core/testing";
import { text } from "../helpers/store-records.js";

const roots: string[] = [];
const newRoot = async (): Promise<string> => {
  const root = await mkdtemp(join(tmpdir(), "agentry-jsonl-"));
  roots.push(root);
  return root;
};
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

const lines = async (file: string): Promise<string[]> => (await readFile(file, "utf8")).split("\n");

runSessionStoreContract("JsonlSessionStore", async () => new JsonlSessionStore({ root: await newRoot() }));
runSessionStoreContract(
  "JsonlSessionStore (fsync: false)",
  async () => new JsonlSessionStore({ root: await newRoot(), fsync: false }),
);

describe("JsonlSessionStore on disk", () => {
  it("uses seed 003's layout: descriptor.json, state.json and history.jsonl per session", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    const session = await store.createSession({ agentId: "todo", name: "Groceries", attributes: { list: "home" } });
    await store.append(session.sessionId, [text("m1", "milk"), text("m2", "eggs")]);
    await store.updateSession(session.sessionId, { lastSnippet: "eggs" });
    const dir = join(root, session.sessionId);
    expect((await readdir(dir)).sort()).toEqual(["descriptor.json", "history.jsonl", "state.json"]);
    expect(JSON.parse(await readFile(join(dir, "descriptor.json"), "utf8"))).toEqual({
      version: 1,
      sessionId: session.sessionId,
      agentId: "todo",
      createdAt: session.createdAt,
    });
    const state = JSON.parse(await readFile(join(dir, "state.json"), "utf8"));
    expect(state).toMatchObject({ name: "Groceries", attributes: { list: "home" }, lastSnippet: "eggs", lastSeq: 2 });
    expect(state).toMatchObject({ agentId: "todo", createdAt: session.createdAt });
    expect(state.updatedAt).toBe((await store.getSession(session.sessionId))!.updatedAt);
    const history = await lines(join(dir, "history.jsonl"));
    expect(history.at(-1)).toBe("");
    expect(history.slice(0, -1).map((line) => JSON.parse(line).id)).toEqual(["m1", "m2"]);
  });

  it("drops a torn last line on load and cuts it off before the next append", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(sessionId, [text("m1", "one")]);
    await store.append(sessionId, [text("m2", "two")]);
    const file = join(root, sessionId, "history.jsonl");
    await appendFile(file, '{"id":"m3","seq":3,"at":"2024-01-01T00:00:00.000Z","frame":null,"kind":"mess');
    expect((await store.load(sessionId)).map((r) => r.id)).toEqual(["m1", "m2"]);
    expect((await new JsonlSessionStore({ root }).load(sessionId)).map((r) => r.id)).toEqual(["m1", "m2"]);
    const [third] = await store.append(sessionId, [text("m3", "three")]);
    expect(third?.seq).toBe(3);
    const reopened = new JsonlSessionStore({ root });
    expect((await reopened.load(sessionId)).map((r) => [r.id, r.seq])).toEqual([
      ["m1", 1],
      ["m2", 2],
      ["m3", 3],
    ]);
    expect((await lines(file)).slice(0, -1).every((line) => JSON.parse(line))).toBe(true);
  });

  it("a fresh instance repairs a torn tail too, and NUL garbage counts as torn", async () => {
    const root = await newRoot();
    const { sessionId } = await new JsonlSessionStore({ root }).createSession({ agentId: "a" });
    await new JsonlSessionStore({ root }).append(sessionId, [text("m1", "one")]);
    await appendFile(join(root, sessionId, "history.jsonl"), Buffer.alloc(64));
    const store = new JsonlSessionStore({ root });
    expect((await store.load(sessionId)).map((r) => r.id)).toEqual(["m1"]);
    await store.append(sessionId, [text("m2", "two")]);
    expect((await new JsonlSessionStore({ root }).load(sessionId)).map((r) => [r.id, r.seq])).toEqual([
      ["m1", 1],
      ["m2", 2],
    ]);
  });

  it("drops a batch cut short by a crash: appends stay all or nothing on disk", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(sessionId, [text("m1", "one")]);
    await store.append(sessionId, [text("b1", "batch"), text("b2", "batch"), text("b3", "batch")]);
    const file = join(root, sessionId, "history.jsonl");
    const [first, ...batch] = (await lines(file)).slice(0, -1);
    // The crash hit after the second line of the batch.
    await truncate(file, Buffer.byteLength(`${first}\n${batch[0]}\n${batch[1]}\n`));
    const reopened = new JsonlSessionStore({ root });
    expect((await reopened.load(sessionId)).map((r) => r.id)).toEqual(["m1"]);
    const retried = await reopened.append(sessionId, [text("b1", "batch"), text("b2", "batch"), text("b3", "batch")]);
    expect(retried.map((r) => r.seq)).toEqual([2, 3, 4]);
    const loaded = await new JsonlSessionStore({ root }).load(sessionId);
    expect(loaded.map((r) => r.id)).toEqual(["m1", "b1", "b2", "b3"]);
    expect(loaded.every((r) => !("$batch" in r))).toBe(true);
  });

  it("a corrupt line that is not the last is a SessionStoreError naming the file and line", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(sessionId, [text("m1", "one"), text("m2", "two"), text("m3", "three")]);
    const file = join(root, sessionId, "history.jsonl");
    const content = await lines(file);
    content[1] = "{not json";
    await writeFile(file, content.join("\n"));
    const error = await new JsonlSessionStore({ root }).load(sessionId).catch((e: unknown) => e);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain("line 2");
  });

  it("reads only the tail for afterSeq / sinceLastReset, and still names the right line when it is corrupt", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(
      sessionId,
      Array.from({ length: 6 }, (_, n) => text(`m${n + 1}`, `${n + 1}`)),
    );
    await store.clear(sessionId);
    await store.append(sessionId, [text("m8", "8"), { ...text("c9", "9"), frame: "call_1" }, text("m10", "10")]);
    expect((await store.load(sessionId, { sinceLastReset: true })).map((r) => r.id)).toEqual(["m8", "c9", "m10"]);
    expect((await store.load(sessionId, { sinceLastReset: true, frame: null, afterSeq: 8 })).map((r) => r.id)).toEqual([
      "m10",
    ]);
    expect((await store.load(sessionId, { afterSeq: 4.5 })).map((r) => r.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(await store.load(sessionId, { afterSeq: 99 })).toEqual([]);
    // Same size, so this instance keeps its index and reads the tail only.
    const file = join(root, sessionId, "history.jsonl");
    const content = await lines(file);
    content[8] = `{${"x".repeat(content[8]!.length - 1)}`;
    await writeFile(file, content.join("\n"));
    const error = await store.load(sessionId, { afterSeq: 7 }).catch((e: unknown) => e);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("line 9");
  });

  it("writes metadata atomically and leaves no temp files", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    const { sessionId } = await store.createSession({ agentId: "a" });
    const statePath = join(root, sessionId, "state.json");
    let reads = 0;
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        JSON.parse(await readFile(statePath, "utf8"));
        reads++;
      }
    })();
    await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        store.updateSession(sessionId, { name: `name ${n}`, attributes: { n, pad: "x".repeat(5000) } }),
      ),
    );
    await Promise.all(Array.from({ length: 20 }, (_, n) => store.append(sessionId, [text(`m${n}`, "hi")])));
    stop = true;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect((await store.getSession(sessionId))?.name).toBe("name 39");
    expect(await readdir(join(root, sessionId))).toEqual(expect.not.arrayContaining([expect.stringMatching(/\.tmp$/)]));
    await store.deleteSession(sessionId);
    expect(await readdir(root)).toEqual([]);
  });

  it("instances sharing a root see each other's sessions and continue each other's history", async () => {
    const root = await newRoot();
    const a = new JsonlSessionStore({ root });
    const b = new JsonlSessionStore({ root });
    const session = await a.createSession({ agentId: "todo" });
    await a.append(session.sessionId, [text("m1", "from a")]);
    expect(await b.getSession(session.sessionId)).toEqual(await a.getSession(session.sessionId));
    expect((await b.listSessions({ agentId: "todo" })).map((s) => s.sessionId)).toEqual([session.sessionId]);
    await b.append(session.sessionId, [text("m2", "from b")]);
    await a.append(session.sessionId, [text("m3", "from a again"), text("m1", "duplicate")]);
    expect((await b.load(session.sessionId)).map((r) => [r.id, r.seq])).toEqual([
      ["m1", 1],
      ["m2", 2],
      ["m3", 3],
    ]);
    await b.updateSession(session.sessionId, { name: "renamed by b" });
    expect((await a.getSession(session.sessionId))?.name).toBe("renamed by b");
    await b.deleteSession(session.sessionId);
    expect(await a.getSession(session.sessionId)).toBeUndefined();
    await expect(a.append(session.sessionId, [text("m4", "late")])).rejects.toSatisfy((e) =>
      SessionNotFoundError.isInstance(e),
    );
  });

  it("keeps idempotency across restarts: ids are rebuilt from the file", async () => {
    const root = await newRoot();
    const { sessionId } = await new JsonlSessionStore({ root }).createSession({ agentId: "a" });
    const [original] = await new JsonlSessionStore({ root }).append(sessionId, [text("m1", "first")]);
    const again = await new JsonlSessionStore({ root }).append(sessionId, [text("m1", "retry"), text("m2", "new")]);
    expect(again[0]).toEqual(original);
    expect(again[1]?.seq).toBe(2);
    expect(await new JsonlSessionStore({ root }).load(sessionId)).toHaveLength(2);
  });

  it("rejects session ids that are not safe directory names", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    for (const sessionId of ["../escape", "a/b", "a\\b", "..", ".", ".hidden", "nul\0byte", "x".repeat(129)]) {
      const isInvalid = (e: unknown): boolean => InvalidArgumentError.isInstance(e);
      await expect(store.createSession({ agentId: "a", sessionId })).rejects.toSatisfy(isInvalid);
      await expect(store.getSession(sessionId)).rejects.toSatisfy(isInvalid);
      await expect(store.load(sessionId)).rejects.toSatisfy(isInvalid);
      await expect(store.append(sessionId, [text("m1", "x")])).rejects.toSatisfy(isInvalid);
      await expect(store.deleteSession(sessionId)).rejects.toSatisfy(isInvalid);
    }
    expect(await readdir(root)).toEqual([]);
  });

  it("a session whose state.json was never written (crash during create) is read from its descriptor", async () => {
    const root = await newRoot();
    const store = new JsonlSessionStore({ root });
    const session = await store.createSession({ agentId: "todo" });
    await rm(join(root, session.sessionId, "state.json"));
    const reopened = new JsonlSessionStore({ root });
    expect(await reopened.getSession(session.sessionId)).toEqual(session);
    expect((await reopened.listSessions({ agentId: "todo" })).map((s) => s.sessionId)).toEqual([session.sessionId]);
    await reopened.append(session.sessionId, [text("m1", "hi")]);
    expect(JSON.parse(await readFile(join(root, session.sessionId, "state.json"), "utf8"))).toMatchObject({
      agentId: "todo",
      lastSeq: 1,
    });
  });

  it("ignores a half-created session directory and lists nothing for a missing root", async () => {
    const root = await newRoot();
    expect(await new JsonlSessionStore({ root: join(root, "not-yet") }).listSessions()).toEqual([]);
    // A crash between mkdir and publishing descriptor.json leaves a directory with a temp file.
    await mkdir(join(root, "half-created"));
    await writeFile(join(root, "half-created", "descriptor.json.1234.tmp"), '{"ver');
    const store = new JsonlSessionStore({ root });
    expect(await store.listSessions()).toEqual([]);
    expect(await store.getSession("half-created")).toBeUndefined();
    await expect(store.load("half-created")).rejects.toSatisfy((e) => SessionNotFoundError.isInstance(e));
    expect((await store.createSession({ agentId: "b", sessionId: "half-created" })).agentId).toBe("b");
    expect((await store.listSessions()).map((s) => s.sessionId)).toEqual(["half-created"]);
  });
});

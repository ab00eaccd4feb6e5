import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { migrate } from "../../src/postgres/postgres-migrations.js";
import { fromPgJson, fromPgText, toPgJson, toPgText } from "../../src/postgres/postgres-text.js";
import { makeRuntime, textOf } from "../runtime/helpers.js";
import { adminClient, databaseUrl, freshSchema, requireDatabase, storeOnFreshSchema } from "./database.js";

// NUL, the escape character, the escape's digits and a backslash, mixed with anything.
const awkward = fc
  .array(
    fc.oneof(fc.constantFrom("\u0000", "\u0001", "0", "1", "\\", "u"), fc.string({ maxLength: 2, unit: "grapheme" })),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

describe("Postgres text escape", () => {
  it("round-trips every string, never writes U+0000, and keeps prefixes (p is a prefix of s exactly when escaped p is of escaped s)", () => {
    fc.assert(
      fc.property(awkward, awkward, (text, other) => {
        const stored = toPgText(text);
        expect(stored).not.toContain("\u0000");
        expect(fromPgText(stored)).toBe(text);
        expect(stored.startsWith(toPgText(other))).toBe(text.startsWith(other));
      }),
      { numRuns: 3000 },
    );
  });

  it("round-trips JSON whose strings and keys hold U+0000 (jsonb refuses \\u0000)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), awkward, (value, text) => {
        const wrapped = { [text]: [value, text], __proto__: text };
        const stored = toPgJson(wrapped);
        expect(stored).not.toMatch(/\\u0000/);
        expect(fromPgJson(stored)).toStrictEqual(JSON.parse(JSON.stringify(wrapped)));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("PostgresSessionStore and U+0000", () => {
  if (!requireDatabase()) return;
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const task of cleanup) await task();
  });

  it("a model reply, tool arguments and a scope with U+0000: every turn of the session completes and is stored exactly", async () => {
    const store = storeOnFreshSchema();
    cleanup.push(() => store.close());
    const replies = ["reply \u0000 one", "reply \u0000\u00010 two"];
    let turn = 0;
    const { runtime } = makeRuntime(
      (request) => {
        const last = request.messages.at(-1)!;
        if (last.role === "tool") return { text: replies[turn++]! };
        return { toolCalls: [{ name: "todo_add", args: { item: "milk\u0000" } }] };
      },
      { store },
    );
    const scope = "tenant\u0000/alice";
    const first = await runtime.send({ agentId: "todo", content: "add \u0000 milk", scope });
    expect(first.status).toBe("complete");
    expect(first.text).toBe(replies[0]);
    const second = await runtime.send({ agentId: "todo", content: "again", scope, session: first.sessionId });
    expect(second.status).toBe("complete");
    expect(second.text).toBe(replies[1]);
    const [session] = await store.listSessions({ scopePrefix: "tenant\u0000" });
    expect(session).toMatchObject({ sessionId: first.sessionId, scope, lastSnippet: expect.stringContaining("two") });
    const history = (await store.load(first.sessionId)).flatMap((record) =>
      record.kind === "message" ? [textOf(record.message)] : [],
    );
    expect(history).toEqual(expect.arrayContaining(["add \u0000 milk", replies[0], replies[1]]));
    const audit = await runtime.auditLog(first.sessionId, { scopePrefix: "tenant\u0000/" });
    expect(audit).toHaveLength(2);
    await runtime.close();
  });

  it("upgrading a version-1 schema keeps the text that holds U+0001 (stored before it was the escape character)", async () => {
    const schema = freshSchema();
    const admin = await adminClient();
    cleanup.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    await migrate(admin, schema, 1);
    const s = `"${schema}"`;
    const odd = "a\u00010\u00011\u0001";
    await admin.query(
      `INSERT INTO ${s}.sessions (id, agent_id, scope, name, attributes, created_at, updated_at, touch, last_snippet, last_seq)
       VALUES ($1, $1, $1, $1, $2::jsonb, now(), now(), 1, $1, 1)`,
      [odd, JSON.stringify({ [odd]: odd })],
    );
    const body = {
      id: odd,
      seq: 1,
      at: new Date().toISOString(),
      frame: odd,
      kind: "message",
      message: { role: "user", content: odd },
    };
    await admin.query(
      `INSERT INTO ${s}.records (session_id, seq, id, at, frame, kind, body) VALUES ($1, 1, $1, $2, $1, 'message', $3::json)`,
      [odd, body.at, JSON.stringify(body)],
    );
    const request = { requestId: odd, toolCallId: "c", name: "t", args: {}, depth: 0, parentId: null, reason: "r" };
    await admin.query(
      `INSERT INTO ${s}.approvals (request_id, session_id, agent_id, scope, ord, body) VALUES ($1, $1, $1, $1, 2, $2::json)`,
      [odd, JSON.stringify({ id: odd, seq: 2, at: body.at, frame: null, kind: "approval", request })],
    );
    const store = new PostgresSessionStore({ connectionString: databaseUrl!, schema });
    cleanup.push(() => store.close());
    expect(await store.getSession(odd)).toMatchObject({
      sessionId: odd,
      agentId: odd,
      scope: odd,
      name: odd,
      lastSnippet: odd,
      attributes: { [odd]: odd },
    });
    expect((await store.listSessions({ scopePrefix: "a\u00010" })).map((summary) => summary.sessionId)).toEqual([odd]);
    expect((await store.load(odd, { frame: odd })).map((record) => record.id)).toEqual([odd]);
    expect(await store.findApproval(odd)).toMatchObject({ requestId: odd, sessionId: odd, scope: odd, decided: false });
    // The session's id changed underneath (escaped); its records and approvals followed it.
    await store.append(odd, [{ id: "after", kind: "message", frame: null, message: { role: "user", content: "x" } }]);
    expect((await store.load(odd)).map((record) => record.id)).toEqual([odd, "after"]);
    await store.deleteSession(odd);
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${s}.records`)).rows[0].n).toBe(0);
  });
});

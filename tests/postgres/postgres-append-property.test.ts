import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { NewRecord } from "@agentry/core";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { databaseUrl, requireDatabase, storeOnFreshSchema } from "./database.js";

const text = (id: string): NewRecord => ({ id, kind: "message", frame: null, message: { role: "user", content: id } });

describe("PostgresSessionStore: concurrent appends through two pools", () => {
  if (!requireDatabase()) return;
  const first = storeOnFreshSchema();
  // A second store (its own pool, its own connections) on the same schema: another process, as far as Postgres can tell.
  const second = new PostgresSessionStore({ connectionString: databaseUrl!, schema: first.schema, max: 4 });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it("batches with overlapping ids, appended at once from both: seq 1..n without gaps, each id once, every caller sees the stored record", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 8,
        }),
        async (batches) => {
          const { sessionId } = await first.createSession({ agentId: "a" });
          const results = await Promise.all(
            batches.map((batch, index) =>
              (index % 2 === 0 ? first : second).append(
                sessionId,
                batch.map((n) => text(`r${n}`)),
              ),
            ),
          );
          const stored = await first.load(sessionId);
          expect(stored.map((record) => record.seq)).toEqual(stored.map((_, index) => index + 1));
          const ids = stored.map((record) => record.id);
          expect(new Set(ids).size).toBe(ids.length);
          expect(new Set(ids)).toEqual(new Set(batches.flat().map((n) => `r${n}`)));
          const byId = new Map(stored.map((record) => [record.id, record]));
          for (const result of results) for (const record of result) expect(record).toEqual(byId.get(record.id));
        },
      ),
      { numRuns: 25 },
    );
  });
});

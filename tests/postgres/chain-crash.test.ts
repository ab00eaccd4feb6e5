import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bundleChainWorker,
  CHAIN_KILLS,
  CHAIN_LIMIT_MS,
  CHAIN_OUTCOMES,
  MAY_OR_MAY_NOT,
  REFUNDED,
  runChainWorker,
  settleBefore,
  type Touched,
} from "../runtime/fixtures/chain-runs.js";
import { adminClient, freshSchema, requireDatabase } from "./database.js";

describe(
  "a delegation chain survives a SIGKILL at any step of its resume (PostgreSQL)",
  { timeout: 5 * CHAIN_LIMIT_MS },
  () => {
    if (!requireDatabase()) return;
    let worker: string;
    let removeBundle: (() => void) | undefined;
    const schemas: string[] = [];
    beforeAll(async () => {
      const bundle = await bundleChainWorker();
      worker = bundle.path;
      removeBundle = bundle.remove;
    }, CHAIN_LIMIT_MS);
    afterAll(async () => {
      removeBundle?.();
      const client = await adminClient();
      for (const schema of schemas)
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await client.end();
    });
    const run = (args: string[]) => runChainWorker(worker, args);

    // Every step of the resume, touched from below (the leaf) and by a decision or a listing: each
    // process reaches the others only through the database.
    const cases = CHAIN_KILLS.flatMap((kill, index) => [
      [kill, "leaf"] as const,
      [kill, (["decide", "list-root", "mid"] as const)[index % 3]!] as const,
    ]);
    it.each(cases)(
      "killed at %s, then touched by %s: the chain is finished, the refund ran once",
      async (kill, how) => {
        const schema = freshSchema();
        schemas.push(schema);
        const marks = join(mkdtempSync(join(tmpdir(), "agentry-pg-chain-")), "marks");
        const path = `postgres:${schema}:${marks}`;
        const started = JSON.parse((await run([path, "start"])).stdout) as { sessionId: string; requestId: string };
        const killed = await run([path, "resolve", started.requestId, kill]);
        expect(killed.signal).toBe("SIGKILL");
        await settleBefore(how, kill);
        const touched = JSON.parse(
          (await run([path, "touch", `${started.sessionId},${started.requestId}`, how])).stdout,
        ) as Touched;
        expect(touched.outcome).toBe(CHAIN_OUTCOMES[how]);
        expect(touched.problems).toEqual([]);
        const refunds = existsSync(marks) ? readFileSync(marks, "utf8") : "";
        if (kill === "in-tool") {
          expect(refunds).toBe("");
          expect(touched.texts).toContain(MAY_OR_MAY_NOT);
        } else {
          expect(refunds).toBe("refund\n");
          expect(touched.texts).toContain(REFUNDED);
        }
      },
    );
  },
);

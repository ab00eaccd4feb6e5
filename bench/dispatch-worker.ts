// A worker process of bench/dispatch.ts: a runtime on the Postgres store with a fake model that
// answers after a fixed latency, working on the pg-boss queue. Args: <schema> <bossSchema> <concurrency> <latencyMs>.
import PgBoss from "pg-boss";
import { createAgentRegistry } from "../src/agents/create-agent-registry.js";
import { createAgentRuntime } from "../src/runtime/create-agent-runtime.js";
import { PostgresSessionStore } from "../src/postgres/postgres-session-store.js";
import { createPgBossDispatcher } from "../src/postgres/pg-boss-dispatcher.js";
import { createFakeProvider } from "../src/testing/create-fake-provider.js";

const [schema, bossSchema, concurrency, latency] = process.argv.slice(2) as [string, string, string, string];
const url = process.env.DATABASE_URL!;
const store = new PostgresSessionStore({ connectionString: url, schema, max: Number(concurrency) + 4 });
const boss = new PgBoss({ connectionString: url, schema: bossSchema, max: 4, schedule: false });
boss.on("error", () => undefined);
await boss.start();
const runtime = createAgentRuntime({
  registry: createAgentRegistry([{ agentId: "bench", displayName: "Bench", systemPrompt: "Answer." }]),
  store,
  providers: { fake: createFakeProvider(() => ({ text: "ok, done", delayMs: Number(latency) })) },
  defaultModel: "fake",
});
const dispatcher = createPgBossDispatcher({ boss, store, runtime, concurrency: Number(concurrency) });
await dispatcher.start();
process.stdout.write("READY\n");
process.on("SIGTERM", () => {
  void (async () => {
    await dispatcher.close();
    await runtime.close();
    await boss.stop({ graceful: false, wait: true, close: true });
    await store.close();
    process.exit(0);
  })();
});

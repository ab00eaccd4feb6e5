/**
 * What the front and the workers of examples/workers share: the store, pg-boss, the agents, the
 * tools and the model. Offline by default (a scripted model); with OPENAI_API_KEY set the workers
 * use `openai()` (OPENAI_MODEL, default gpt-4.1-mini).
 */
import PgBoss from "pg-boss";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  type AgentRuntime,
  type ModelRequest,
  type Provider,
} from "@agentry/core";
import { openai } from "@agentry/core/openai";
import { createPgBossDispatcher, PostgresSessionStore, type PgBossDispatcher } from "@agentry/core/postgres";
import { createFakeProvider } from "@agentry/core/testing";

export interface App {
  store: PostgresSessionStore;
  boss: PgBoss;
  runtime: AgentRuntime | undefined;
  dispatcher: PgBossDispatcher;
  close(): Promise<void>;
}

/** The offline model: "add <item>" adds it, "remove <item>" removes it (needs approval), anything else is echoed. */
function scriptedModel(): Provider {
  return createFakeProvider((request: ModelRequest) => {
    const last = request.messages.at(-1)!;
    if (last.role === "tool") return { text: `Done: ${JSON.stringify(last.content[0]?.result)}` };
    const text = typeof last.content === "string" ? last.content : "";
    const [verb, ...rest] = text.split(" ");
    const item = rest.join(" ");
    if (verb === "add" && item) return { toolCalls: [{ name: "add_item", args: { item } }] };
    if (verb === "remove" && item) return { toolCalls: [{ name: "remove_item", args: { item } }] };
    return { text: `You said: ${text}` };
  });
}

/**
 * Opens one process of the app. `worker: true` runs turns here (with `concurrency` at once);
 * `false` only enqueues them and waits for their events (the HTTP front).
 */
export async function openApp(options: { worker: boolean; name?: string; concurrency?: number }): Promise<App> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("Set DATABASE_URL (see examples/workers/README.md)");
  // Every process of the app must use the same two schemas.
  const store = new PostgresSessionStore({ connectionString: url, schema: process.env.AGENTRY_SCHEMA ?? "agentry" });
  const boss = new PgBoss({
    connectionString: url,
    schema: process.env.PGBOSS_SCHEMA ?? "pgboss",
    supervise: options.worker,
    schedule: false,
  });
  boss.on("error", (error) => console.error("pg-boss:", error.message));
  await boss.start();
  let runtime: AgentRuntime | undefined;
  if (options.worker) {
    const name = options.name ?? `worker-${process.pid}`;
    const list = `"${store.schema}".shopping_list`;
    await createListTable(store, list);
    const addItem = defineTool({
      name: "add_item",
      description: "Adds an item to the shared shopping list.",
      input: z.object({ item: z.string().min(1).max(200) }),
      execute: async ({ item }) => {
        await store.pool.query(`INSERT INTO ${list} (item, added_by) VALUES ($1, $2) ON CONFLICT (item) DO NOTHING`, [
          item,
          name,
        ]);
        return `added ${item} (on ${name})`;
      },
    });
    const removeItem = defineTool({
      name: "remove_item",
      description: "Removes an item from the shared shopping list.",
      input: z.object({ item: z.string().min(1).max(200) }),
      requiresApproval: true,
      execute: async ({ item }) => {
        const { rowCount } = await store.pool.query(`DELETE FROM ${list} WHERE item = $1`, [item]);
        return rowCount ? `removed ${item} (on ${name})` : `${item} was not on the list`;
      },
    });
    runtime = createAgentRuntime({
      registry: createAgentRegistry([
        { agentId: "shopper", displayName: "Shopper", systemPrompt: "You keep the shared shopping list." },
      ]),
      store,
      providers: { model: process.env.OPENAI_API_KEY ? openai() : scriptedModel() },
      defaultModel: process.env.OPENAI_MODEL ?? "gpt-4.1-mini",
      tools: [addItem, removeItem],
      // A worker that dies holding a session blocks it for at most this long.
      leaseTtlMs: 10_000,
    });
  }
  const dispatcher = createPgBossDispatcher({
    boss,
    store,
    ...(runtime && { runtime }),
    concurrency: options.concurrency ?? 8,
  });
  await dispatcher.start();
  return {
    store,
    boss,
    runtime,
    dispatcher,
    async close() {
      await dispatcher.close(); // finishes running turns, hands queued work back
      await runtime?.close();
      await boss.stop({ graceful: true, wait: true, close: true });
      await store.close();
    },
  };
}

/**
 * Creates the shared list (once). Workers start together, and two concurrent `CREATE ... IF NOT
 * EXISTS` of one name can still collide in Postgres, so they take turns under an advisory lock.
 */
async function createListTable(store: PostgresSessionStore, list: string): Promise<void> {
  const client = await store.pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [list]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${store.schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${list} (item text PRIMARY KEY, added_by text NOT NULL)`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

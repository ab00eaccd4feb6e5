import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime } from "@agentry/core";
import { createInspector } from "@agentry/core/inspector";
import { createFakeProvider } from "@agentry/core/testing";
import { databaseUrl, freshSchema, requireDatabase, storeOnFreshSchema } from "./database.js";

const run = promisify(execFile);
const writer = fileURLToPath(new URL("./fixtures/inspector-writer.ts", import.meta.url));

describe("inspector: live on Postgres", () => {
  if (!requireDatabase()) return;

  it("streams the records another process appends to the session", async () => {
    const schema = freshSchema();
    const store = storeOnFreshSchema({ schema });
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "general", displayName: "General" }]),
      store,
      providers: { fake: createFakeProvider(() => ({ text: "first" })) },
      defaultModel: "m",
    });
    try {
      const first = await runtime.send({ agentId: "general", content: "one" });
      const lastSeq = (await store.load(first.sessionId)).at(-1)!.seq;
      const inspector = createInspector({
        runtime,
        authorize: () => ({ scopePrefix: "", canAct: false }),
        // A fallback read once a minute: within the test, only the other process's signals can bring its records.
        livePollMs: 60_000,
      });
      const controller = new AbortController();
      const response = await inspector(
        new Request(`http://x/api/sessions/${first.sessionId}/live?afterSeq=${lastSeq}`, { signal: controller.signal }),
      );
      const reader = response.body!.getReader();
      // The stream's first read of the store happens now, before the other process writes.
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(": live\n\n");
      const { stdout } = await run(
        process.execPath,
        ["--import", "tsx", writer, databaseUrl!, schema, first.sessionId],
        { timeout: 60_000 },
      );
      const runId = /sent (\S+)/.exec(stdout)![1]!;
      const decoder = new TextDecoder();
      let text = "";
      while (!/event: turn\ndata: .*"status":"complete"/.test(text)) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      expect(text).toContain("written by the other process");
      expect(text).toContain(`"runId":"${runId}"`);
      controller.abort();
      await reader.cancel();
    } finally {
      await runtime.close();
      await store.close();
    }
  }, 90_000);
});

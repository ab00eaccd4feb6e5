import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { MemorySessionStore, parsePlan } from "@agentry/core";
import { lazyTaskApi } from "../../src/runtime/tasks/lazy-task-api.js";
import { loadOnDemand } from "../../src/runtime/common/load-on-demand.js";
import type { TaskRuntime } from "../../src/runtime/tasks/task-api.js";
import { lazyBackgroundNotices } from "../../src/runtime/delegation/lazy-background-notices.js";
import type { RuntimeContext } from "../../src/runtime/common/runtime-context.js";
import type { Lineage } from "../../src/runtime/common/runtime-core.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The source modules of the core entry's static graph (esbuild, code splitting on, as the ESM build). */
async function staticModules(): Promise<{ loaded: Set<string>; all: Set<string> }> {
  const { metafile } = await build({
    entryPoints: [`${root}src/index.ts`],
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    external: ["zod", "zod/*"],
    outdir: `${root}.lazy-graph-out`,
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const outputs: Metafile["outputs"] = metafile.outputs;
  const entry = Object.keys(outputs).find((key) => outputs[key]!.entryPoint === "src/index.ts")!;
  const chunks = new Set<string>();
  const visit = (key: string) => {
    if (chunks.has(key)) return;
    chunks.add(key);
    for (const i of outputs[key]!.imports) if (i.kind === "import-statement" && !i.external) visit(i.path);
  };
  visit(entry);
  const modulesOf = (keys: Iterable<string>) => new Set([...keys].flatMap((key) => Object.keys(outputs[key]!.inputs)));
  return { loaded: modulesOf(chunks), all: modulesOf(Object.keys(outputs)) };
}

const runtime = (): TaskRuntime => ({
  store: new MemorySessionStore(),
  checkAgent: () => undefined,
  setRole: () => Promise.resolve(),
  send: () => Promise.reject(new Error("no turns here")),
  stop: () => undefined,
  deleteSession: () => Promise.resolve(),
  publish: () => undefined,
  parsePlan,
});

describe("the task API and the agent tools' calls, loaded on first use", () => {
  it("are not in what importing the core loads; the runtime's turn, loop and memory store are", async () => {
    const { loaded, all } = await staticModules();
    // The task API and what the agent tools do (delegation, background agents) load on first use.
    for (const onDemand of [
      "src/runtime/tasks/task-api.ts",
      "src/runtime/agent-tools/agents-message.ts",
      "src/runtime/agent-tools/start-background-agent.ts",
      "src/runtime/agent-tools/send-agent-message.ts",
      "src/runtime/agent-tools/close-background-agent.ts",
      "src/runtime/agent-tools/list-background-agents.ts",
      "src/runtime/approvals/approvals.ts",
      "src/runtime/approvals/permission-notices.ts",
      "src/runtime/turn/read-audit-log.ts",
      "src/runtime/turn/dispatched-turn.ts",
      "src/runtime/roles/set-role.ts",
      "src/runtime/delegation/delegated-waits.ts",
      "src/runtime/delegation/delegation-answer.ts",
      "src/runtime/delegation/background-notices.ts",
      "src/runtime/delegation/subagent-lifecycle.ts",
      "src/runtime/delegation/hand-off.ts",
    ]) {
      expect(all).toContain(onDemand);
      expect(loaded).not.toContain(onDemand);
    }
    for (const main of [
      "src/runtime/create-agent-runtime.ts",
      "src/runtime/turn/run-turn.ts",
      "src/loop/run-unified-agent-loop.ts",
      "src/sessions/memory-session-store.ts",
      "src/runtime/tasks/task-state.ts",
      "src/runtime/agent-tools/agent-tool-inputs.ts",
    ])
      expect(loaded).toContain(main);
  }, 30_000);

  it("a load that failed is tried again on the next call, then answers as the task API", async () => {
    let loads = 0;
    const tasks = lazyTaskApi(runtime(), () => {
      loads += 1;
      return loads === 1 ? Promise.reject(new Error("chunk not delivered")) : loadOnDemand();
    });
    await expect(tasks.list()).rejects.toThrow("chunk not delivered");
    await expect(tasks.list()).resolves.toEqual([]);
    await expect(tasks.get("nope")).resolves.toBeUndefined();
    await expect(tasks.rename("nope", "title")).rejects.toThrow('Unknown task "nope"');
    expect(loads).toBe(2);
  });

  it("background notices that cannot load are reported, and the watched turn's failure is handled", async () => {
    const reported: [string, string][] = [];
    const report: RuntimeContext["report"] = (code, error) => void reported.push([code, String(error)]);
    const notices = lazyBackgroundNotices({ report } as Pick<RuntimeContext, "report"> as RuntimeContext, () =>
      Promise.reject(new Error("chunk not delivered")),
    );
    const session = { sessionId: "s1", agentId: "a", createdAt: "", updatedAt: "" };
    notices.watch(session, {} as Lineage, Promise.reject(new Error("turn failed")));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reported).toEqual([["background_notice_failed", "Error: chunk not delivered"]]);
  });
});

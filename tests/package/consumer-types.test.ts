import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/**
 * What a consumer installs beside the package: its dependencies and the documented peers (with
 * `@types/pg`, documented for the Postgres entry, and `@types/node` for the Node-only entries), and
 * nothing else: no `@types/better-sqlite3`.
 */
const INSTALLED = [
  "zod",
  "eventemitter3",
  "p-queue",
  "zod-to-json-schema",
  "diff",
  "@cfworker/json-schema",
  "better-sqlite3",
  "pg",
  "pg-boss",
  "@modelcontextprotocol/sdk",
  "@opentelemetry/api",
  "@ai-sdk/provider",
  "@types/node",
  "@types/pg",
];

const CONSUMER = `
import { createAgentRuntime, defineTool, MemorySessionStore, type RuntimeHooks } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { openai } from "@agentry/core/openai";
import { anthropic } from "@agentry/core/anthropic";
import { JsonlSessionStore, createWorkspaceTools } from "@agentry/core/node";
import { SqliteSessionStore, type SqliteSessionStoreOptions } from "@agentry/core/sqlite";
import { PostgresSessionStore, createPgBossDispatcher } from "@agentry/core/postgres";
import { connectMcpServer, serveAgentsOverMcp } from "@agentry/core/mcp";
import { toUIMessageStream, toAgUiEvents } from "@agentry/core/ui";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { instrumentRuntime } from "@agentry/core/otel";
import { createInspector } from "@agentry/core/inspector";

const hooks: RuntimeHooks = { stopWhen: ({ steps }) => steps.length > 3 };
const options: SqliteSessionStoreOptions = { path: ":memory:" };
export const used = [
  createAgentRuntime, defineTool, MemorySessionStore, hooks, createFakeProvider, openai, anthropic, JsonlSessionStore,
  createWorkspaceTools, SqliteSessionStore, options, PostgresSessionStore, createPgBossDispatcher, connectMcpServer,
  serveAgentsOverMcp, toUIMessageStream, toAgUiEvents, fromAiSdk, instrumentRuntime, createInspector,
];
`;

describe("the package's declarations, compiled by a consumer", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentry-consumer-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("typecheck with only the documented peers installed (skipLibCheck off)", () => {
    if (!existsSync(join(repo, "dist", "index.d.ts")))
      throw new Error("dist/ is missing: this test compiles the built package (npm run build first)");
    const modules = join(dir, "node_modules");
    const own = join(modules, "@agentry", "core");
    mkdirSync(own, { recursive: true });
    cpSync(join(repo, "dist"), join(own, "dist"), { recursive: true, filter: (path) => !path.endsWith(".map") });
    cpSync(join(repo, "package.json"), join(own, "package.json"));
    for (const name of INSTALLED) {
      mkdirSync(dirname(join(modules, name)), { recursive: true });
      symlinkSync(join(repo, "node_modules", name), join(modules, name), "dir");
    }
    writeFileSync(join(dir, "index.ts"), CONSUMER);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["index.ts"],
      }),
    );
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module", private: true }));
    let output = "";
    try {
      execFileSync(process.execPath, [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", dir], {
        encoding: "utf8",
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // Errors inside the peers' own declarations are theirs; ours (and a missing module) are not allowed.
    const ours = output.split("\n").filter((line) => /node_modules\/@agentry|index\.ts|TS7016|TS2307/.test(line));
    expect(ours).toEqual([]);
  }, 120_000);
});

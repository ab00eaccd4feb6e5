#!/usr/bin/env node
/**
 * `agentry-inspect`: the inspector on a store file or database, standalone.
 *
 *   npx agentry-inspect --sqlite agents.db [--port 4040] [--host 127.0.0.1]
 *   npx agentry-inspect --postgres "$DATABASE_URL"
 *   npx agentry-inspect --app ./my-runtime.js --allow-actions
 *
 * Read-only unless `--allow-actions`, which needs `--app`: a module of the host's whose `runtime`
 * export (or default export) is its `AgentRuntime`, or a function resolving to one. Deciding an
 * approval resumes the turn, and only the app's runtime has the agents, tools and providers for it. Answers only
 * requests from this machine (loopback peers,
 * with a Host header naming the address it listens on, so another site cannot reach it through
 * DNS rebinding). Prints the URL, then serves until stopped.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import type { SessionStore } from "../contracts/session-store.js";
import type { AgentRuntime } from "../contracts/agent-runtime.js";
import { createAgentRegistry } from "../agents/create-agent-registry.js";
import { createAgentRuntime } from "../runtime/create-agent-runtime.js";
import { createInspector } from "../inspector/create-inspector.js";
import { toNodeHandler } from "../inspector/to-node-handler.js";

const USAGE =
  "usage: agentry-inspect (--sqlite <file> | --postgres <url> | --app <module>) [--port 4040] [--host 127.0.0.1] [--allow-actions]";

interface InspectArgs {
  sqlite?: string;
  postgres?: string;
  app?: string;
  port: number;
  host: string;
  allowActions: boolean;
}

function parsed(argv: string[]): InspectArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      sqlite: { type: "string" },
      postgres: { type: "string" },
      app: { type: "string" },
      port: { type: "string", default: "4040" },
      host: { type: "string", default: "127.0.0.1" },
      "allow-actions": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  const port = Number(values.port);
  const sources = [values.sqlite, values.postgres, values.app].filter((value) => value !== undefined).length;
  if (values.help || sources !== 1 || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(USAGE);
  }
  if (values["allow-actions"] && values.app === undefined) {
    throw new Error(
      "agentry-inspect: --allow-actions needs --app <module exporting your runtime>: a decision resumes the turn, " +
        "which needs your agents, tools and providers",
    );
  }
  return {
    ...(values.sqlite !== undefined && { sqlite: values.sqlite }),
    ...(values.postgres !== undefined && { postgres: values.postgres }),
    ...(values.app !== undefined && { app: values.app }),
    port,
    host: values.host,
    allowActions: values["allow-actions"],
  };
}

async function openStore(args: InspectArgs): Promise<{ store: SessionStore; close: () => Promise<void> }> {
  if (args.sqlite !== undefined) {
    const { SqliteSessionStore } = await import("../sqlite/sqlite-session-store.js");
    const store = new SqliteSessionStore({ path: args.sqlite });
    return { store, close: async () => store.close() };
  }
  const { PostgresSessionStore } = await import("../postgres/postgres-session-store.js");
  const store = new PostgresSessionStore({ connectionString: args.postgres! });
  return { store, close: () => store.close() };
}

/** A read-only runtime on the store file or database: no agents or providers, so it reads and never resumes. */
async function storeRuntime(args: InspectArgs): Promise<{ runtime: AgentRuntime; close: () => Promise<void> }> {
  const { store, close } = await openStore(args);
  const runtime = createAgentRuntime({ registry: createAgentRegistry([]), store, providers: {} });
  return {
    runtime,
    close: async () => {
      await runtime.close();
      await close();
    },
  };
}

/**
 * The host's own runtime, from its module's `runtime` or default export (a runtime, or a function resolving to one).
 */
async function appRuntime(specifier: string): Promise<{ runtime: AgentRuntime; close: () => Promise<void> }> {
  const url = /^[a-z]+:/i.test(specifier) ? specifier : pathToFileURL(resolvePath(specifier)).href;
  const loaded = (await import(url)) as { runtime?: unknown; default?: unknown };
  const exported = loaded.runtime ?? loaded.default;
  const runtime = (typeof exported === "function" ? await (exported as () => unknown)() : exported) as
    AgentRuntime | undefined;
  if (typeof runtime !== "object" || runtime === null || typeof runtime.resolveApproval !== "function") {
    throw new Error(
      `agentry-inspect: ${specifier} exports no runtime (export \`runtime\`, or a default export, created by createAgentRuntime)`,
    );
  }
  return { runtime, close: () => runtime.close() };
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/** Starts the server; resolves with its URL and a function that stops it. */
export async function startInspect(argv: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const args = parsed(argv);
  const { runtime, close } = args.app !== undefined ? await appRuntime(args.app) : await storeRuntime(args);
  const inspector = createInspector({ runtime, authorize: () => ({ scopePrefix: "", canAct: args.allowActions }) });
  const handle = toNodeHandler(inspector);
  let allowedHosts = new Set<string>();
  const server = createServer((req, res) => {
    if (!LOOPBACK.has(req.socket.remoteAddress ?? "") || !allowedHosts.has(req.headers.host ?? "")) {
      res.writeHead(403, { "content-type": "application/json" }).end('{"error":"local requests only"}');
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(args.port, args.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = args.host.includes(":") ? `[${args.host}]` : args.host;
  allowedHosts = new Set([`${shownHost}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]);
  return {
    url: `http://${shownHost}:${port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
    },
  };
}

/** Whether this module is the process's entry (not imported by a test). */
function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && /agentry-inspect(\.[cm]?[jt]s)?$/.test(entry);
}

if (isMain()) {
  startInspect(process.argv.slice(2)).then(
    ({ url, close }) => {
      process.stdout.write(`Agentry inspector: ${url}\n`);
      const stop = () => void close().finally(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

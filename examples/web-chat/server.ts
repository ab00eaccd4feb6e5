/**
 * Web chat: a small Node HTTP server on the Agentry runtime and one page that renders its
 * event stream (text, nested tool-call cards, approvals, a question, a plan review, notices).
 * A new chat's first message starts a task (`runtime.tasks`): the planner submits a plan, the
 * page approves or revises it, the actor carries it out (asking with `ask_user` when a choice is
 * the person's).
 *
 * Offline by default (a scripted model). With OPENAI_API_KEY (OPENAI_MODEL, default
 * gpt-4.1-mini) or ANTHROPIC_API_KEY (ANTHROPIC_MODEL, default claude-sonnet-4-5) it uses that
 * provider. Sessions live in SQLite (WEB_CHAT_DB, default ./web-chat.db).
 *
 *   npx tsx --tsconfig tsconfig.tests.json examples/web-chat/server.ts     → http://127.0.0.1:3000
 *
 * The inspector (`@agentry/core/inspector`) is mounted beside the chat at /inspector/, for
 * requests from this machine only (see inspector.ts).
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  createAgentRegistry,
  createAgentRuntime,
  createEventLog,
  parsePlan,
  toServerSentEvents,
  type Provider,
  type RuntimeEvent,
} from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { demoTools, scriptedProvider } from "./demo-agent.js";
import { INSPECTOR_BASE, inspectorHandler } from "./inspector.js";

const AGENT = "assistant";
const publicDir = fileURLToPath(new URL("./public/", import.meta.url));
const STATIC: Record<string, string> = { "/": "index.html", "/app.js": "app.js", "/styles.css": "styles.css" };
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};
const MAX_BODY = 64 * 1024;

function chooseProvider(env: NodeJS.ProcessEnv): { provider: Provider; model: string; label: string } {
  if (env.OPENAI_API_KEY) return { provider: openai(), model: env.OPENAI_MODEL ?? "gpt-4.1-mini", label: "OpenAI" };
  if (env.ANTHROPIC_API_KEY)
    return { provider: anthropic(), model: env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5", label: "Anthropic" };
  return { provider: scriptedProvider(), model: "scripted", label: "scripted (offline)" };
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY) throw new Error("body too large");
    parts.push(part);
  }
  const value: unknown = JSON.parse(Buffer.concat(parts).toString("utf8") || "{}");
  return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

function send(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export interface WebChatOptions {
  /** @default 3000 (0 = any free port) */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** SQLite file. @default "./web-chat.db" */
  dbPath?: string;
  /** @default the provider chosen from the environment */
  provider?: { provider: Provider; model: string; label: string };
}

/** Starts the server; resolves once it listens. */
export async function startWebChat(options: WebChatOptions = {}) {
  const chosen = options.provider ?? chooseProvider(process.env);
  const store = new SqliteSessionStore({ path: options.dbPath ?? "web-chat.db" });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([
      {
        agentId: AGENT,
        displayName: "Trip planner",
        systemPrompt:
          "You help plan weekend trips. Research cities in parallel with run_subtask, and ask the user with ask_user when a choice is theirs.",
      },
    ]),
    store,
    providers: { main: chosen.provider },
    defaultModel: chosen.model,
    tools: demoTools(),
  });
  const log = createEventLog({ runtime });
  const background = (work: Promise<unknown>): void =>
    void work.catch((error: unknown) => console.error("[web-chat]", error instanceof Error ? error.message : error));

  // tasks.create resolves when the planning turn ends; the page needs the task's id at once to
  // follow its events. The id is chosen here, and the reply goes out once the task exists (its
  // first task_status) or creating it failed.
  const startTask = (content: string): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const taskId = randomUUID();
      const onEvent = (event: RuntimeEvent) => {
        if (event.type !== "task_status" || event.taskId !== taskId) return;
        runtime.events.off("event", onEvent);
        resolve(taskId);
      };
      runtime.events.on("event", onEvent);
      background(
        runtime.tasks.create({ agentId: AGENT, content, taskId }).catch((error: unknown) => {
          runtime.events.off("event", onEvent);
          reject(error instanceof Error ? error : new Error(String(error)));
          throw error; // also logged by background(): after the reply it is the only report
        }),
      );
    });

  /** The task a session holds (tasks' session ids are their task ids) and its plan, parsed. */
  const taskState = async (sessionId: string) => {
    const task = await runtime.tasks.get(sessionId);
    if (!task) return { task: null, plan: null };
    const artifact = (await runtime.tasks.artifacts(task.taskId)).find((a) => a.artifactId === task.planArtifactId);
    const parsed = artifact ? parsePlan(artifact.content) : undefined;
    return { task, plan: parsed?.ok ? { artifactId: artifact!.artifactId, ...parsed.plan } : null };
  };

  const inspector = inspectorHandler(runtime);
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const path = url.pathname;
      if (path.startsWith(INSPECTOR_BASE) || path === INSPECTOR_BASE.slice(0, -1)) return inspector(request, response);
      try {
        if (request.method === "GET" && STATIC[path]) {
          const file = STATIC[path];
          response
            .writeHead(200, { "content-type": TYPES[file.split(".").pop()!]!, "cache-control": "no-cache" })
            .end(await readFile(publicDir + file));
          return;
        }
        if (request.method === "GET" && path === "/api/info")
          return send(response, 200, { provider: chosen.label, model: chosen.model });
        if (request.method === "POST" && path === "/api/tasks") {
          const { content } = await readJson(request);
          if (typeof content !== "string" || content.trim() === "")
            return send(response, 400, { error: "content must be a non-empty string" });
          const taskId = await startTask(content);
          return send(response, 201, { taskId, sessionId: taskId });
        }
        let match = /^\/api\/sessions\/([\w-]+)\/events$/.exec(path);
        if (request.method === "GET" && match) {
          const sessionId = match[1]!;
          if (!(await store.getSession(sessionId))) return send(response, 404, { error: "unknown session" });
          const lastEventId = request.headers["last-event-id"];
          const events = log.resume({
            sessionId,
            lastEventId: typeof lastEventId === "string" ? lastEventId : null,
            follow: "session",
          });
          response.writeHead(200, {
            "content-type": "text/event-stream",
            "cache-control": "no-cache",
            connection: "keep-alive",
          });
          const body = Readable.fromWeb(toServerSentEvents(events, { keepAliveMs: 15_000, retryMs: 1_000 }) as never);
          request.on("close", () => body.destroy());
          body.pipe(response);
          return;
        }
        match = /^\/api\/sessions\/([\w-]+)\/messages$/.exec(path);
        if (request.method === "POST" && match) {
          const { content } = await readJson(request);
          if (typeof content !== "string" || content.trim() === "")
            return send(response, 400, { error: "content must be a non-empty string" });
          background(runtime.send({ agentId: AGENT, content, session: match[1]! }));
          return send(response, 202, { accepted: true });
        }
        match = /^\/api\/approvals\/([^/]+)$/.exec(path);
        if (request.method === "POST" && match) {
          const body = await readJson(request);
          const decision =
            body.approved === true
              ? { approved: true }
              : {
                  approved: false,
                  ...(typeof body.reason === "string" && body.reason !== "" && { reason: body.reason }),
                };
          background(runtime.resolveApproval(decodeURIComponent(match[1]!), decision));
          return send(response, 202, { accepted: true });
        }
        match = /^\/api\/answers\/([^/]+)$/.exec(path);
        if (request.method === "POST" && match) {
          const { value } = await readJson(request);
          if (typeof value !== "string") return send(response, 400, { error: "value must be a string" });
          background(runtime.answerQuestion(decodeURIComponent(match[1]!), { value }));
          return send(response, 202, { accepted: true });
        }
        match = /^\/api\/tasks\/([\w-]+)$/.exec(path);
        if (request.method === "GET" && match) return send(response, 200, await taskState(match[1]!));
        match = /^\/api\/tasks\/([\w-]+)\/(approve|revise)$/.exec(path);
        if (request.method === "POST" && match) {
          const { feedback } = await readJson(request);
          const taskId = match[1]!;
          background(
            match[2] === "approve"
              ? runtime.tasks.approve(taskId)
              : runtime.tasks.revise(
                  taskId,
                  typeof feedback === "string" && feedback.trim() !== "" ? feedback : "Please revise the plan.",
                ),
          );
          return send(response, 202, { accepted: true });
        }
        send(response, 404, { error: "not found" });
      } catch (error) {
        if (!response.headersSent)
          send(response, 400, { error: error instanceof Error ? error.message : String(error) });
      }
    })();
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    provider: chosen.label,
    async close() {
      log.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
      store.close();
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const app = await startWebChat({
    port: Number(process.env.PORT ?? 3000),
    dbPath: process.env.WEB_CHAT_DB ?? "web-chat.db",
  });
  console.log(`Web chat on ${app.url} (model: ${app.provider}); inspector on ${app.url}${INSPECTOR_BASE}`);
}

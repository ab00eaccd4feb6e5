// The smallest useful server (README "Put it on a screen"): POST /sessions → { sessionId },
// POST /sessions/:id with the message as the body, GET /sessions/:id → the event stream (SSE,
// resumable with Last-Event-ID). Typechecked with the examples; server.ts is the full one.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { createAgentRegistry, createAgentRuntime, createEventLog, toServerSentEvents } from "@agentry/core";
import { openai } from "@agentry/core/openai";
import { SqliteSessionStore } from "@agentry/core/sqlite";

const runtime = createAgentRuntime({
  registry: createAgentRegistry([{ agentId: "assistant", displayName: "Assistant" }]),
  store: new SqliteSessionStore({ path: "chat.db" }),
  providers: { openai: openai() },
  defaultModel: "gpt-4.1-mini",
});
const log = createEventLog({ runtime });

createServer((req, res) => void handle(req, res)).listen(3000);

async function handle(req: IncomingMessage, res: ServerResponse) {
  const [, , sessionId] = (req.url ?? "/").split("/");
  if (req.method === "POST" && !sessionId) {
    const { sessionId: id } = await runtime.store.createSession({ agentId: "assistant" });
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sessionId: id }));
    return;
  }
  if (!sessionId || !(await runtime.store.getSession(sessionId))) {
    res.writeHead(404).end();
    return;
  }
  if (req.method === "POST") {
    let content = "";
    for await (const part of req) content += String(part);
    void runtime.send({ agentId: "assistant", content, session: sessionId }).catch(console.error);
    res.writeHead(202).end();
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const events = log.resume({
    sessionId,
    lastEventId: req.headers["last-event-id"] as string | undefined,
    follow: "session",
  });
  Readable.fromWeb(toServerSentEvents(events, { keepAliveMs: 15_000 }) as never).pipe(res);
}

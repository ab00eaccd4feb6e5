/**
 * The HTTP front: runs no turns itself, only enqueues them and streams their events back.
 *   PORT=3000 DATABASE_URL=postgres://... npx tsx examples/workers/front.ts
 *
 *   POST /chat            {"content": "add milk", "sessionId"?: "..."} → the turn's events as NDJSON
 *   GET  /approvals       → pending approvals (from the store's index)
 *   POST /approvals/:id   {"approved": true}                        → the resumed turn's result
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { ApprovalAlreadyResolvedError, ApprovalNotFoundError, InvalidArgumentError } from "@agentry/core";
import { openApp } from "./app.js";

const app = await openApp({ worker: false });

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const part of req) {
    text += String(part);
    if (text.length > 64_000) throw new InvalidArgumentError("body too large");
  }
  const parsed: unknown = JSON.parse(text || "{}");
  if (typeof parsed !== "object" || parsed === null) throw new InvalidArgumentError("body must be a JSON object");
  return parsed as Record<string, unknown>;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (req.method === "POST" && url.pathname === "/chat") {
    const { content, sessionId } = await body(req);
    if (typeof content !== "string" || content === "")
      throw new InvalidArgumentError("content must be a non-empty string");
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    const input = { agentId: "shopper", content, session: typeof sessionId === "string" ? sessionId : "create" };
    for await (const event of app.dispatcher.stream(input)) {
      // Text deltas and the rest, as they happen on whichever worker runs the turn.
      res.write(`${JSON.stringify(event)}\n`);
    }
    res.end();
    return;
  }
  if (req.method === "GET" && url.pathname === "/approvals") {
    const pending = await app.store.listPendingApprovals({ limit: 100 });
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify(
        pending.map((p) => ({
          requestId: p.requestId,
          sessionId: p.sessionId,
          tool: p.request.request.name,
          args: p.request.request.args,
        })),
      ),
    );
    return;
  }
  const approval = /^\/approvals\/([^/]+)$/.exec(url.pathname);
  if (req.method === "POST" && approval) {
    const { approved } = await body(req);
    const result = await app.dispatcher.resolveApproval(decodeURIComponent(approval[1]!), {
      approved: approved === true,
    });
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ status: result.status, text: result.text, sessionId: result.sessionId }));
    return;
  }
  res.writeHead(404).end();
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    const status =
      InvalidArgumentError.isInstance(error) || error instanceof SyntaxError
        ? 400
        : ApprovalNotFoundError.isInstance(error)
          ? 404
          : ApprovalAlreadyResolvedError.isInstance(error)
            ? 409
            : 500;
    if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
  });
});
server.listen(Number(process.env.PORT ?? 3000), () => {
  const address = server.address();
  console.log(`front listening on ${typeof address === "object" && address ? address.port : address}`);
});
const stop = () => server.close(() => void app.close().then(() => process.exit(0)));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

/**
 * The inspector, mounted in the web chat's own server at /inspector/, for local use only: the
 * request must come from this machine (the socket's address) and name it (the Host header, which
 * keeps out a DNS-rebinding page). Whoever passes sees every scope and may act. Put your own
 * `authorize` here for anything else (a session cookie, a header set by your auth proxy).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentRuntime } from "@agentry/core";
import { createInspector, toNodeHandler } from "@agentry/core/inspector";

/** Where the inspector is mounted. */
export const INSPECTOR_BASE = "/inspector/";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
const LOCAL_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/** True for a request made on this machine to this machine. */
export function isLocalRequest(request: IncomingMessage): boolean {
  return LOOPBACK.has(request.socket.remoteAddress ?? "") && LOCAL_HOST.test(request.headers.host ?? "");
}

/** Set by this server on local requests only (an incoming one is removed first). */
const LOCAL_HEADER = "x-web-chat-local-operator";

/**
 * A Node request handler for everything under {@link INSPECTOR_BASE}. `authorize` reads a header
 * that only this server sets, on requests from this machine; anything else gets 401 (the page
 * shows "Not authorized").
 */
export function inspectorHandler(runtime: AgentRuntime): (request: IncomingMessage, response: ServerResponse) => void {
  const handle = toNodeHandler(
    createInspector({
      runtime,
      basePath: INSPECTOR_BASE,
      authorize: (request) => (request.headers.get(LOCAL_HEADER) === "1" ? { scopePrefix: "", canAct: true } : null),
    }),
  );
  return (request, response) => {
    delete request.headers[LOCAL_HEADER];
    if (isLocalRequest(request)) request.headers[LOCAL_HEADER] = "1";
    handle(request, response);
  };
}

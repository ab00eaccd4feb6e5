import type { InspectorOptions } from "./inspector-options.js";
import { InvalidArgumentError, SessionNotFoundError } from "../errors/errors.js";
import type { MeResponse, PendingResponse } from "./inspector-api-types.js";
import { runAction } from "./inspector-actions.js";
import { errorResponse, InspectorHttpError, intParam, json } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { checkAction, createCsrfTokens, tenantGuard } from "./inspector-security.js";
import { pageHtml } from "./page-html.js";
import { listSessionRows, sessionListQuery, TurnStates } from "./session-rows.js";
import { matchRoute } from "./inspector-routes.js";
import type { RouteContext, RouteHandler, RouteName } from "./inspector-routes.js";
import { listTasks } from "./task-rows.js";
import { costRows } from "./cost-view.js";
import { liveResponse } from "./live-stream.js";
import { nodeDetail } from "./node-detail.js";
import { redactPending } from "./redact-record.js";
import { sessionDetail, visibleSession } from "./session-detail.js";
import { exportTurnAsTest } from "./export-turn.js";

export type { InspectorOptions, RedactHook, RedactInfo } from "./inspector-options.js";

/**
 * The inspector as a Fetch handler `(request) => Promise<Response>`: a page and a JSON API over
 * the runtime's store, to see every session, turn and tool call, and to decide pending approvals,
 * questions and tasks. Every request is authorized first (`null` → 401); everything is filtered by
 * the caller's `scopePrefix` (outside it: 404, so nothing is revealed); POSTs need `canAct`, the
 * CSRF token of `GET api/me`, JSON, and no cross-site origin (else 403).
 *
 * Mount it in Node's `http` or Express with {@link toNodeHandler}; in Hono:
 * `app.all("/inspector/*", (c) => inspector(c.req.raw))` with `basePath: "/inspector/"`.
 *
 * @example
 * const inspector = createInspector({
 *   runtime,
 *   basePath: "/inspector/",
 *   authorize: async (request) => (isAdmin(request) ? { scopePrefix: "", canAct: true } : null),
 * });
 * createServer(toNodeHandler(inspector)).listen(4000);
 */
export function createInspector(options: InspectorOptions): (request: Request) => Promise<Response> {
  const problems: string[] = [];
  if (typeof options?.authorize !== "function")
    problems.push("authorize is required (a function resolving to { scopePrefix, canAct } or null)");
  if (typeof options?.runtime !== "object" || options.runtime === null) problems.push("runtime is required");
  const basePath = normalizedBase(options?.basePath, problems);
  if (problems.length > 0) throw new InvalidArgumentError(`createInspector: ${problems.join("; ")}`);
  const csrf = createCsrfTokens();
  const shared = {
    options,
    basePath,
    csrf,
    live: { open: 0, byScope: new Map<string, number>() },
    states: new TurnStates(),
  };
  return async (request) => {
    try {
      const url = new URL(request.url);
      if (!url.pathname.startsWith(basePath) && url.pathname !== basePath.slice(0, -1))
        return errorResponse(404, "not found");
      const identity = await authorized(options, request);
      const rest = url.pathname.length < basePath.length ? "" : url.pathname.slice(basePath.length);
      // The page holds no data: a visitor without credentials gets it with a 401, and sees its own "not authorized"
      // state.
      if (!identity)
        return request.method === "GET" && rest === ""
          ? pageResponse(basePath, 401)
          : errorResponse(401, "unauthorized");
      const matched = matchRoute(request.method, rest);
      if (matched === "method") return errorResponse(405, "method not allowed");
      if (!matched) return errorResponse(404, "not found");
      const context: RouteContext = { request, url, identity, params: matched.params, ...shared };
      if (request.method === "POST") await checkAction(request, identity, csrf);
      return await HANDLERS[matched.name](context);
    } catch (error) {
      if (error instanceof InspectorHttpError) return errorResponse(error.status, error.message);
      // A session deleted while it was read: as unknown.
      if (SessionNotFoundError.isInstance(error)) return errorResponse(404, "not found");
      return errorResponse(500, "internal error");
    }
  };
}

async function authorized(options: InspectorOptions, request: Request): Promise<InspectorIdentity | null> {
  const identity = await options.authorize(request);
  if (identity === null || identity === undefined) return null;
  if (typeof identity.scopePrefix !== "string" || typeof identity.canAct !== "boolean")
    throw new InspectorHttpError(500, "authorize returned an invalid identity");
  return { scopePrefix: identity.scopePrefix, canAct: identity.canAct };
}

function normalizedBase(basePath: string | undefined, problems: string[]): string {
  const base = basePath ?? "/";
  if (typeof base !== "string" || !base.startsWith("/")) {
    problems.push("basePath must start with /");
    return "/";
  }
  return base.endsWith("/") ? base : `${base}/`;
}

/** The page runs only its own inline code and talks only to this origin. */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join("; ");

async function page(context: RouteContext): Promise<Response> {
  return pageResponse(context.basePath, 200);
}

function pageResponse(basePath: string, status: number): Response {
  return new Response(pageHtml({ basePath }), {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": PAGE_CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

async function me(context: RouteContext): Promise<Response> {
  const body: MeResponse = { ...context.identity, csrfToken: await context.csrf.tokenFor(context.identity) };
  return json(body);
}

async function pending(context: RouteContext): Promise<Response> {
  const guard = tenantGuard(context.identity);
  const runtime = context.options.runtime;
  const [approvals, questions] = await Promise.all([runtime.pendingApprovals(guard), runtime.pendingQuestions(guard)]);
  const body: PendingResponse = redactPending(approvals, questions, context.options.redact);
  return json(body);
}

async function sessions(context: RouteContext): Promise<Response> {
  const limit = intParam(context.url, "limit", 50, 1, 200);
  return json(
    await listSessionRows(
      context.options.runtime,
      context.identity,
      { ...sessionListQuery(context.url), limit },
      context.states,
      context.options.redact,
    ),
  );
}

async function approval(context: RouteContext): Promise<Response> {
  const target = { kind: "approval", requestId: context.params.requestId! } as const;
  return json(await runAction(context.options.runtime, context.identity, context.request, target));
}

async function question(context: RouteContext): Promise<Response> {
  const target = { kind: "question", questionId: context.params.questionId! } as const;
  return json(await runAction(context.options.runtime, context.identity, context.request, target));
}

async function task(context: RouteContext): Promise<Response> {
  const verb = context.params.verb;
  if (verb !== "approve" && verb !== "revise" && verb !== "cancel") throw new InspectorHttpError(404, "not found");
  const target = { kind: "task", taskId: context.params.taskId!, verb } as const;
  return json(await runAction(context.options.runtime, context.identity, context.request, target));
}

async function tasks(context: RouteContext): Promise<Response> {
  const limit = intParam(context.url, "limit", 50, 1, 200);
  return json(
    await listTasks(
      context.options.runtime,
      context.identity,
      context.url.searchParams.get("cursor") ?? undefined,
      limit,
      context.options.redact,
    ),
  );
}

async function cost(context: RouteContext): Promise<Response> {
  return json(await costRows(context.options.runtime, context.identity, context.url));
}

async function session(context: RouteContext): Promise<Response> {
  return json(
    await sessionDetail(context.options.runtime, context.identity, context.params.id!, context.options.redact),
  );
}

async function node(context: RouteContext): Promise<Response> {
  const { runtime, redact } = context.options;
  return json(await nodeDetail(runtime, context.identity, context.params.id!, context.params.nodeId!, redact));
}

async function live(context: RouteContext): Promise<Response> {
  const { runtime, redact } = context.options;
  const sessionId = context.params.id!;
  await visibleSession(runtime, context.identity, sessionId);
  return liveResponse({
    runtime,
    sessionId,
    afterSeq: intParam(context.url, "afterSeq", 0, 0, Number.MAX_SAFE_INTEGER),
    redact,
    pollMs: context.options.livePollMs ?? 250,
    live: context.live,
    maxConnections: context.options.maxLiveConnections ?? 32,
    scopePrefix: context.identity.scopePrefix,
    maxPerScope: context.options.maxLiveConnectionsPerScope ?? 8,
    signal: context.request.signal,
  });
}

async function exportTurn(context: RouteContext): Promise<Response> {
  const { runtime, redact } = context.options;
  const file = await exportTurnAsTest({
    runtime,
    identity: context.identity,
    sessionId: context.params.id!,
    runId: context.params.runId!,
    redact,
  });
  return new Response(file.source, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

const HANDLERS: Record<RouteName, RouteHandler> = {
  page,
  me,
  sessions,
  session,
  node,
  live,
  exportTurn,
  pending,
  tasks,
  cost,
  approval,
  question,
  task,
};

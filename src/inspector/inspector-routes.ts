import type { InspectorOptions } from "./inspector-options.js";
import { InspectorHttpError } from "./inspector-http.js";
import type { CsrfTokens, InspectorIdentity } from "./inspector-security.js";
import type { TurnStates } from "./session-rows.js";
import type { LiveCount } from "./live-stream.js";

/** What a route handler gets. */
export interface RouteContext {
  request: Request;
  url: URL;
  identity: InspectorIdentity;
  /** The route's path parameters, decoded. */
  params: Record<string, string | undefined>;
  options: InspectorOptions;
  /** The mount path, ending in `/`. */
  basePath: string;
  csrf: CsrfTokens;
  /** Live streams open now (shared by every request of one inspector). */
  live: LiveCount;
  /** The sessions' last turn states, as read so far. */
  states: TurnStates;
}

/** A route handler. */
export type RouteHandler = (context: RouteContext) => Promise<Response>;

/** Every route of the inspector, by name. */
export type RouteName =
  | "page"
  | "me"
  | "sessions"
  | "session"
  | "node"
  | "live"
  | "exportTurn"
  | "pending"
  | "tasks"
  | "cost"
  | "approval"
  | "question"
  | "task";

interface Route {
  method: "GET" | "POST";
  segments: string[];
  name: RouteName;
}

/** The API's routes (paths relative to the mount path). */
const ROUTES: Route[] = (
  [
    ["GET", "", "page"],
    ["GET", "api/me", "me"],
    ["GET", "api/sessions", "sessions"],
    ["GET", "api/sessions/:id", "session"],
    ["GET", "api/sessions/:id/nodes/:nodeId", "node"],
    ["GET", "api/sessions/:id/live", "live"],
    ["GET", "api/sessions/:id/turns/:runId/export", "exportTurn"],
    ["GET", "api/pending", "pending"],
    ["GET", "api/tasks", "tasks"],
    ["GET", "api/cost", "cost"],
    ["POST", "api/approvals/:requestId", "approval"],
    ["POST", "api/questions/:questionId", "question"],
    ["POST", "api/tasks/:taskId/:verb", "task"],
  ] as const
).map(([method, path, name]) => ({ method, segments: path === "" ? [] : path.split("/"), name }));

/** The route for `method` and `path`; `"method"` when the path exists under another method only. */
export function matchRoute(
  method: string,
  path: string,
): { name: RouteName; params: Record<string, string> } | "method" | undefined {
  const segments = path === "" ? [] : path.split("/");
  let otherMethod = false;
  for (const route of ROUTES) {
    const params = matchSegments(route.segments, segments);
    if (!params) continue;
    if (route.method === method || (method === "HEAD" && route.method === "GET")) return { name: route.name, params };
    otherMethod = true;
  }
  return otherMethod ? "method" : undefined;
}

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith(":")) {
      if (actual === "") return undefined;
      params[expected.slice(1)] = decoded(actual);
    } else if (expected !== actual) return undefined;
  }
  return params;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InspectorHttpError(400, "malformed path");
  }
}

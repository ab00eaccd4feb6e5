import { useEffect, useState } from "preact/hooks";
import type { MeResponse } from "../inspector-api-types.js";
import { createClient, loadMe, type ApiResult } from "./api.js";
import { CostView } from "./cost-view.js";
import { PendingView } from "./pending-view.js";
import { SessionView } from "./session-view.js";
import { SessionsView } from "./sessions-view.js";
import { TasksView } from "./tasks-view.js";
import { ErrorState } from "./widgets.js";

/** The page's views, from the location's hash (`#/session/<id>`, `#/pending`, ...). */
export type Route =
  | { view: "sessions" }
  | { view: "session"; sessionId: string }
  | { view: "pending" }
  | { view: "tasks" }
  | { view: "cost" };

/** Reads a route from a hash; anything unknown is the session list. */
export function parseRoute(hash: string): Route {
  const [, view = "", id] = hash.replace(/^#/, "").split("/");
  if (view === "session" && id) return { view: "session", sessionId: decodeURIComponent(id) };
  if (view === "pending" || view === "tasks" || view === "cost") return { view };
  return { view: "sessions" };
}

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  return route;
}

const NAV: { href: string; label: string; views: Route["view"][] }[] = [
  { href: "#/", label: "Sessions", views: ["sessions", "session"] },
  { href: "#/pending", label: "Pending", views: ["pending"] },
  { href: "#/tasks", label: "Tasks", views: ["tasks"] },
  { href: "#/cost", label: "Cost", views: ["cost"] },
];

/** The inspector page: who is looking (`api/me`), the navigation, and the current view. */
export function App({ base }: { base: string }) {
  const [client] = useState(() => createClient(base));
  const [me, setMe] = useState<ApiResult<MeResponse> | undefined>(undefined);
  const route = useRoute();
  useEffect(() => {
    void loadMe(client).then((result) => {
      if (result.ok) client.setCsrfToken(result.data.csrfToken);
      setMe(result);
      document.body.dataset.ready = result.ok ? "true" : String(result.status);
    });
  }, []);
  if (me === undefined) return <p class="muted">Loading…</p>;
  if (!me.ok) return <ErrorState code={me.status} error={me.error} />;
  const { canAct, scopePrefix } = me.data;
  return (
    <>
      <nav class="top" aria-label="Inspector">
        <strong class="brand">Agentry inspector</strong>
        {NAV.map((item) => (
          <a key={item.href} href={item.href} aria-current={item.views.includes(route.view) ? "page" : undefined}>
            {item.label}
          </a>
        ))}
        <span class="who" data-testid="who">
          {scopePrefix === "" ? "all scopes" : `scopes ${scopePrefix}…`} · {canAct ? "can act" : "read-only"}
        </span>
      </nav>
      <main>{renderRoute(route, client, canAct)}</main>
    </>
  );
}

function renderRoute(route: Route, client: ReturnType<typeof createClient>, canAct: boolean) {
  switch (route.view) {
    case "sessions":
      return <SessionsView client={client} />;
    case "session":
      return <SessionView key={route.sessionId} client={client} sessionId={route.sessionId} />;
    case "pending":
      return <PendingView client={client} canAct={canAct} />;
    case "tasks":
      return <TasksView client={client} canAct={canAct} />;
    case "cost":
      return <CostView client={client} />;
    default: {
      const never: never = route;
      return never;
    }
  }
}

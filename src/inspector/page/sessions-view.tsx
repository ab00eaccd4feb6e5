import { useEffect, useState } from "preact/hooks";
import { sessionStates, type SessionListResponse, type SessionState } from "../inspector-api-types.js";
import type { ApiResult, InspectorClient } from "./api.js";
import { formatTime } from "./format.js";
import { ErrorState, Pager, StateBadge } from "./widgets.js";

interface Filters {
  scopePrefix: string;
  agentId: string;
  state: SessionState | "";
  q: string;
}

const PAGE_SIZE = 50;
const EMPTY: Filters = { scopePrefix: "", agentId: "", state: "", q: "" };

function listPath(filters: Filters, cursor: string | undefined): string {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const [name, value] of Object.entries(filters)) if (value !== "") query.set(name, value);
  if (cursor !== undefined) query.set("cursor", cursor);
  return `api/sessions?${query.toString()}`;
}

function FilterForm({ initial, onApply }: { initial: Filters; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(initial);
  const field = (name: keyof Filters) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });
  return (
    <form
      class="filters"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      <label>
        Search{" "}
        <input
          type="search"
          value={draft.q}
          onInput={field("q")}
          placeholder="session id or text"
          data-testid="filter-q"
        />
      </label>
      <label>
        Scope prefix <input value={draft.scopePrefix} onInput={field("scopePrefix")} data-testid="filter-scope" />
      </label>
      <label>
        Agent <input value={draft.agentId} onInput={field("agentId")} data-testid="filter-agent" />
      </label>
      <label>
        State{" "}
        <select value={draft.state} onChange={field("state")} data-testid="filter-state">
          <option value="">any</option>
          {sessionStates.map((state) => (
            <option key={state} value={state}>
              {state}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" data-testid="apply-filters">
        Apply
      </button>
    </form>
  );
}

/** The sessions the caller may see, newest first, filtered and paginated on the server. */
export function SessionsView({ client }: { client: InspectorClient }) {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [result, setResult] = useState<ApiResult<SessionListResponse> | undefined>(undefined);
  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    let live = true;
    void client.get<SessionListResponse>(listPath(filters, cursor)).then((value) => live && setResult(value));
    return () => void (live = false);
  }, [filters, cursor]);
  if (result?.ok === false) return <ErrorState code={result.status} error={result.error} />;
  const items = result?.data.items;
  return (
    <div data-testid="sessions-view">
      <h1>Sessions</h1>
      <FilterForm
        initial={filters}
        onApply={(next) => {
          setFilters(next);
          setCursors([undefined]);
        }}
      />
      <table class="list" data-testid="sessions" aria-busy={result === undefined}>
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Agent</th>
            <th scope="col">Scope</th>
            <th scope="col">State</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {items?.map((row) => (
            <tr key={row.sessionId} data-testid="session-row" data-session-id={row.sessionId}>
              <td>
                <a href={`#/session/${encodeURIComponent(row.sessionId)}`}>{row.name ?? row.sessionId}</a>
                {row.lastSnippet && <div class="snippet">{row.lastSnippet}</div>}
              </td>
              <td>{row.agentId}</td>
              <td>{row.scope ?? "—"}</td>
              <td>
                <StateBadge state={row.state} />
              </td>
              <td>{formatTime(row.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {items?.length === 0 && (
        <p class="muted" data-testid="no-sessions">
          No sessions match.
        </p>
      )}
      <Pager
        page={cursors.length - 1}
        hasNext={result?.data.nextCursor !== undefined}
        onPrevious={() => setCursors(cursors.slice(0, -1))}
        onNext={() => setCursors([...cursors, result?.data.nextCursor])}
      />
    </div>
  );
}

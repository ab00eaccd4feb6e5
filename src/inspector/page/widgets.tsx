import type { SessionState } from "../inspector-api-types.js";

const STATE_LABELS: Record<SessionState, string> = {
  idle: "idle",
  running: "running",
  waiting: "waiting for a decision",
  failed: "failed",
  budget_exceeded: "budget exceeded",
};

/** A session's state as a coloured badge. */
export function StateBadge({ state }: { state: SessionState }) {
  return (
    <span class={`badge state-${state}`} data-testid="state" data-state={state}>
      {STATE_LABELS[state]}
    </span>
  );
}

/** What a failed load shows: 401 (not signed in), 404 (not found or not yours: the same), anything else. */
export function ErrorState({ code, error }: { code: number; error: string }) {
  if (code === 401) {
    return (
      <div class="empty" data-testid="unauthorized" role="alert">
        <h2>Not authorized</h2>
        <p>The inspector did not recognise you. Sign in to the application, then reload.</p>
      </div>
    );
  }
  if (code === 404) {
    return (
      <div class="empty" data-testid="not-found" role="alert">
        <h2>Not found</h2>
        <p>There is nothing here that you may see.</p>
      </div>
    );
  }
  return (
    <div class="empty" data-testid="error" role="alert">
      <h2>Something went wrong</h2>
      <p>
        {code > 0 ? `${code}: ` : ""}
        {error}
      </p>
    </div>
  );
}

/** Previous / next buttons over a server's cursors (a stack of the cursors seen). */
export function Pager(props: { page: number; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={props.page === 0} onClick={props.onPrevious} data-testid="previous-page">
        ← Newer
      </button>
      <span>Page {props.page + 1}</span>
      <button type="button" disabled={!props.hasNext} onClick={props.onNext} data-testid="next-page">
        Older →
      </button>
    </nav>
  );
}

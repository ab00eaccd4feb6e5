import { useEffect, useState } from "preact/hooks";
import type { TaskListResponse, TaskRow } from "../inspector-api-types.js";
import type { ApiResult, InspectorClient } from "./api.js";
import { formatTime } from "./format.js";
import { useAction } from "./use-action.js";
import { ErrorState, Pager } from "./widgets.js";

const OPEN_STATES = new Set<TaskRow["state"]>(["planning", "awaiting_review", "executing"]);

function TaskCard({ client, task, canAct }: { client: InspectorClient; task: TaskRow; canAct: boolean }) {
  const { state, run } = useAction(client);
  const [feedback, setFeedback] = useState("");
  const path = (action: string) => `api/tasks/${encodeURIComponent(task.taskId)}/${action}`;
  const busy = state.status === "sending" || state.status === "done";
  return (
    <article class="decision" data-testid="task" data-task-id={task.taskId} data-state={task.state}>
      <header>
        <strong>{task.title}</strong> <span class={`badge task-${task.state}`}>{task.state}</span>
      </header>
      <p class="muted">
        {task.agentId} · <a href={`#/session/${encodeURIComponent(task.sessionId)}`}>{task.sessionId}</a> ·{" "}
        {formatTime(task.updatedAt)}
      </p>
      {(task.actorAgentId !== undefined || task.continues !== undefined) && (
        <p class="muted" data-testid="task-links">
          {task.actorAgentId !== undefined && (
            <>
              carried out by {task.actorAgentId}
              {task.actorSessionId !== undefined && (
                <>
                  {" "}
                  in <a href={`#/session/${encodeURIComponent(task.actorSessionId)}`}>{task.actorSessionId}</a>
                </>
              )}
            </>
          )}
          {task.actorAgentId !== undefined && task.continues !== undefined && " · "}
          {task.continues !== undefined && <>continues {task.continues}</>}
        </p>
      )}
      {task.plan && (
        <section class="plan" data-testid="plan">
          <p>
            <strong>Goal:</strong> {task.plan.goal}
          </p>
          <ol>
            {task.plan.steps.map((step) => (
              <li key={step.step_number}>
                {step.action}
                {step.reason && <span class="muted"> — {step.reason}</span>}
              </li>
            ))}
          </ol>
        </section>
      )}
      {canAct && OPEN_STATES.has(task.state) && (
        <div class="actions">
          {task.state === "awaiting_review" && (
            <>
              <button
                type="button"
                class="primary"
                disabled={busy}
                data-testid="task-approve"
                onClick={() => void run(path("approve"), {}, "Plan approved")}
              >
                Approve plan
              </button>
              <input
                aria-label="Feedback for the planner"
                placeholder="feedback"
                value={feedback}
                onInput={(e) => setFeedback(e.currentTarget.value)}
                disabled={busy}
              />
              <button
                type="button"
                disabled={busy || feedback === ""}
                data-testid="task-revise"
                onClick={() => void run(path("revise"), { feedback }, "Sent back")}
              >
                Revise
              </button>
            </>
          )}
          <button
            type="button"
            disabled={busy}
            data-testid="task-cancel"
            onClick={() => void run(path("cancel"), {}, "Cancelled")}
          >
            Cancel task
          </button>
        </div>
      )}
      {state.status === "done" && (
        <p class="outcome ok" role="status">
          {state.message}
        </p>
      )}
      {state.status === "failed" && (
        <p class="outcome error-text" role="alert" data-testid="outcome">
          {state.message}
        </p>
      )}
    </article>
  );
}

/** Tasks with their plan and state; approve / revise / cancel for those still open. */
export function TasksView({ client, canAct }: { client: InspectorClient; canAct: boolean }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [result, setResult] = useState<ApiResult<TaskListResponse> | undefined>(undefined);
  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    let live = true;
    const path = cursor === undefined ? "api/tasks" : `api/tasks?cursor=${encodeURIComponent(cursor)}`;
    void client.get<TaskListResponse>(path).then((value) => live && setResult(value));
    return () => void (live = false);
  }, [cursor]);
  if (result === undefined) return <p class="muted">Loading…</p>;
  if (!result.ok) return <ErrorState code={result.status} error={result.error} />;
  return (
    <div data-testid="tasks-view">
      <h1>Tasks</h1>
      {result.data.items.length === 0 && <p class="muted">No tasks.</p>}
      {result.data.items.map((task) => (
        <TaskCard key={task.taskId} client={client} task={task} canAct={canAct} />
      ))}
      <Pager
        page={cursors.length - 1}
        hasNext={result.data.nextCursor !== undefined}
        onPrevious={() => setCursors(cursors.slice(0, -1))}
        onNext={() => setCursors([...cursors, result.data.nextCursor])}
      />
    </div>
  );
}

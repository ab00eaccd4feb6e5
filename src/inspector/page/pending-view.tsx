import { useCallback, useEffect, useState } from "preact/hooks";
import type { PendingApproval, PendingQuestion } from "../../contracts/agent-runtime.js";
import type { PendingResponse } from "../inspector-api-types.js";
import type { ApiResult, InspectorClient } from "./api.js";
import { formatJson, formatTime } from "./format.js";
import { useAction, type ActionState } from "./use-action.js";
import { ErrorState } from "./widgets.js";

function Outcome({ state }: { state: ActionState }) {
  if (state.status === "done")
    return (
      <p class="outcome ok" role="status" data-testid="outcome">
        {state.message}
      </p>
    );
  if (state.status === "failed")
    return (
      <p class="outcome error-text" role="alert" data-testid="outcome">
        {state.message}
      </p>
    );
  return null;
}

function ApprovalCard({
  client,
  approval,
  canAct,
}: {
  client: InspectorClient;
  approval: PendingApproval;
  canAct: boolean;
}) {
  const { state, run } = useAction(client);
  const [reason, setReason] = useState("");
  const path = `api/approvals/${encodeURIComponent(approval.requestId)}`;
  const busy = state.status === "sending" || state.status === "done";
  return (
    <article class="decision" data-testid="approval" data-request-id={approval.requestId}>
      <header>
        <strong>{approval.request.name}</strong> <span class="muted">{approval.request.reason}</span>
      </header>
      <p class="muted">
        {approval.agentId} · <a href={`#/session/${encodeURIComponent(approval.sessionId)}`}>{approval.sessionId}</a> ·{" "}
        {formatTime(approval.at)}
      </p>
      <pre>{formatJson(approval.request.args, 4000)}</pre>
      {canAct && (
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={busy}
            data-testid="approve"
            onClick={() => void run(path, { approved: true }, "Approved")}
          >
            Approve
          </button>
          <input
            aria-label="Reason for denying"
            placeholder="reason (optional)"
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
            disabled={busy}
          />
          <button
            type="button"
            disabled={busy}
            data-testid="deny"
            onClick={() => void run(path, reason === "" ? { approved: false } : { approved: false, reason }, "Denied")}
          >
            Deny
          </button>
        </div>
      )}
      <Outcome state={state} />
    </article>
  );
}

function QuestionCard({
  client,
  question,
  canAct,
}: {
  client: InspectorClient;
  question: PendingQuestion;
  canAct: boolean;
}) {
  const { state, run } = useAction(client);
  const [text, setText] = useState("");
  const path = `api/questions/${encodeURIComponent(question.questionId)}`;
  const busy = state.status === "sending" || state.status === "done";
  return (
    <article class="decision" data-testid="question" data-question-id={question.questionId}>
      <header>
        <strong>{question.question.question}</strong> <span class="badge">{question.question.severity}</span>
      </header>
      <p class="muted">
        {question.agentId} · <a href={`#/session/${encodeURIComponent(question.sessionId)}`}>{question.sessionId}</a> ·{" "}
        {formatTime(question.at)}
      </p>
      {question.question.context && <p>{question.question.context}</p>}
      {canAct && (
        <div class="actions">
          {question.question.options.map((option) => (
            <button
              key={option.value}
              type="button"
              disabled={busy}
              data-testid="answer"
              title={option.description}
              onClick={() => void run(path, { value: option.value }, `Answered: ${option.label}`)}
            >
              {option.label}
            </button>
          ))}
          {question.question.allow_custom && (
            <>
              <input
                aria-label="Your answer"
                value={text}
                onInput={(e) => setText(e.currentTarget.value)}
                disabled={busy}
              />
              <button
                type="button"
                disabled={busy || text === ""}
                data-testid="answer-text"
                onClick={() => void run(path, { text }, "Answered")}
              >
                Send
              </button>
            </>
          )}
        </div>
      )}
      <Outcome state={state} />
    </article>
  );
}

/** Approvals and questions waiting for a person, within the caller's scopes. */
export function PendingView({ client, canAct }: { client: InspectorClient; canAct: boolean }) {
  const [result, setResult] = useState<ApiResult<PendingResponse> | undefined>(undefined);
  const load = useCallback(() => void client.get<PendingResponse>("api/pending").then(setResult), []);
  useEffect(load, []);
  if (result === undefined) return <p class="muted">Loading…</p>;
  if (!result.ok) return <ErrorState code={result.status} error={result.error} />;
  const { approvals, questions } = result.data;
  return (
    <div data-testid="pending-view">
      <h1>
        Pending decisions{" "}
        <button type="button" onClick={load} data-testid="refresh">
          Refresh
        </button>
      </h1>
      {!canAct && <p class="muted">You may look but not act.</p>}
      <h2>Approvals ({approvals.length})</h2>
      {approvals.length === 0 && <p class="muted">None.</p>}
      {approvals.map((approval) => (
        <ApprovalCard key={approval.requestId} client={client} approval={approval} canAct={canAct} />
      ))}
      <h2>Questions ({questions.length})</h2>
      {questions.length === 0 && <p class="muted">None.</p>}
      {questions.map((question) => (
        <QuestionCard key={question.questionId} client={client} question={question} canAct={canAct} />
      ))}
    </div>
  );
}

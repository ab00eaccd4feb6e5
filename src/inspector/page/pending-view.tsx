import { useCallback, useEffect, useState } from "preact/hooks";
import type { PendingApproval, PendingQuestion } from "../../contracts/agent-runtime.js";
import type { PendingResponse } from "../inspector-api-types.js";
import type { ApiResult, InspectorClient } from "./api.js";
import { formatJson, formatTime } from "./format.js";
import { ALREADY_DECIDED, useAction, type ActionState } from "./use-action.js";
import { ErrorState } from "./widgets.js";

/** Told when a card's request was decided (here, or already elsewhere: a 409), with what to show. */
type Settle = (id: string, outcome: ActionState) => void;

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
  onSettled,
}: {
  client: InspectorClient;
  approval: PendingApproval;
  canAct: boolean;
  onSettled: Settle;
}) {
  const { state, run } = useAction(client, (outcome) => onSettled(approval.requestId, outcome));
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
  onSettled,
}: {
  client: InspectorClient;
  question: PendingQuestion;
  canAct: boolean;
  onSettled: Settle;
}) {
  const { state, run } = useAction(client, (outcome) => onSettled(question.questionId, outcome));
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

/** A request decided from this page: it left the list; its outcome stays shown here. */
function DecidedCard({ item, outcome }: { item: Decided["item"]; outcome: ActionState }) {
  const approval = "requestId" in item;
  return (
    <article
      class="decision decided"
      data-testid={approval ? "approval" : "question"}
      data-state="decided"
      data-request-id={approval ? item.requestId : item.questionId}
    >
      <header>
        <strong>{approval ? item.request.name : item.question.question}</strong>
      </header>
      <p class="muted">
        {item.agentId} · <a href={`#/session/${encodeURIComponent(item.sessionId)}`}>{item.sessionId}</a>
      </p>
      <Outcome state={outcome} />
    </article>
  );
}

interface Decided {
  item: PendingApproval | PendingQuestion;
  outcome: ActionState;
}

/**
 * Approvals and questions waiting for a person, within the caller's scopes. The view follows its
 * own actions: a request decided here (or found already decided: 409) leaves the list, which is
 * read again, so a request the resumed turn made next (a chained approval) appears at once; the
 * decided ones stay below with their outcome.
 */
export function PendingView({ client, canAct }: { client: InspectorClient; canAct: boolean }) {
  const [result, setResult] = useState<ApiResult<PendingResponse> | undefined>(undefined);
  const [decided, setDecided] = useState<Map<string, Decided>>(new Map());
  const load = useCallback(() => void client.get<PendingResponse>("api/pending").then(setResult), []);
  useEffect(load, []);
  const settle =
    (item: PendingApproval | PendingQuestion): Settle =>
    (id, outcome) => {
      const settled = outcome.status === "done" || (outcome.status === "failed" && outcome.message === ALREADY_DECIDED);
      if (!settled) return;
      setDecided((before) => new Map(before).set(id, { item, outcome }));
      load();
    };
  if (result === undefined) return <p class="muted">Loading…</p>;
  if (!result.ok) return <ErrorState code={result.status} error={result.error} />;
  const approvals = result.data.approvals.filter((a) => !decided.has(a.requestId));
  const questions = result.data.questions.filter((q) => !decided.has(q.questionId));
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
      <div data-testid="pending-approvals">
        {approvals.map((approval) => (
          <ApprovalCard
            key={approval.requestId}
            client={client}
            approval={approval}
            canAct={canAct}
            onSettled={settle(approval)}
          />
        ))}
      </div>
      <h2>Questions ({questions.length})</h2>
      {questions.length === 0 && <p class="muted">None.</p>}
      <div data-testid="pending-questions">
        {questions.map((question) => (
          <QuestionCard
            key={question.questionId}
            client={client}
            question={question}
            canAct={canAct}
            onSettled={settle(question)}
          />
        ))}
      </div>
      {decided.size > 0 && (
        <>
          <h2>Decided here</h2>
          <div data-testid="decided">
            {[...decided].map(([id, { item, outcome }]) => (
              <DecidedCard key={id} item={item} outcome={outcome} />
            ))}
          </div>
        </>
      )}
    </div>
  );
}

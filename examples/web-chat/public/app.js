// The web chat page: renders an Agentry session's event stream (SSE from createEventLog +
// toServerSentEvents). No framework: one state map of cards keyed by toolCallId.

const $ = (selector) => document.querySelector(selector);
const timeline = $("#timeline");
const attention = $("#attention");
const activity = $("#activity");
const statusPill = $('[data-testid="turn-status"]');
const taskPill = $('[data-testid="task-status"]');

/** Builds an element: h("div", { class: "x", onclick }, child, "text"). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat())
    if (child !== undefined && child !== null && child !== false)
      el.append(child instanceof Node ? child : String(child));
  return el;
}

const preview = (value, max = 400) => {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 1);
  return text === undefined ? "" : text.length > max ? `${text.slice(0, max)}…` : text;
};
const formatDuration = (ms) => {
  // Ignore implausible values (a call resumed in another process has no start of its own).
  if (typeof ms !== "number" || ms < 0 || ms > 86_400_000) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
};
const STATUS_LABEL = {
  idle: "Idle",
  running: "Working…",
  complete: "Done",
  suspended: "Waiting for you",
  error: "Failed",
  aborted: "Stopped",
  budget_exceeded: "Budget reached",
  iteration_limit: "Stopped (step limit)",
};

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error ?? response.statusText);
  return response.json();
}

// ---- state ----
let sessionId;
let block; // the assistant block events go to
let taskId; // the task this chat holds (its session id), once known
let planPanelEl; // the plan card under review, if any
const cards = new Map(); // toolCallId -> card
const approvals = new Map(); // requestId -> { toolCallId, element[] }

function setStatus(status) {
  statusPill.dataset.status = status;
  statusPill.textContent = STATUS_LABEL[status] ?? status;
}
function setActivity(text) {
  activity.textContent = text ?? "";
}

function reset() {
  timeline.replaceChildren();
  attention.replaceChildren();
  attention.hidden = true;
  cards.clear();
  approvals.clear();
  block = undefined;
  planPanelEl = undefined;
  taskPill.hidden = true;
}

function addUser(text) {
  $("#empty")?.remove();
  timeline.append(h("div", { class: "msg-user", "data-testid": "user-message" }, text));
  block = undefined;
}

function ensureBlock() {
  $("#empty")?.remove();
  if (!block) {
    const el = h("div", { class: "msg-assistant", "data-testid": "assistant" });
    block = { el, text: undefined, cards: undefined };
    timeline.append(el);
  }
  return block;
}
function appendText(content) {
  const b = ensureBlock();
  if (!b.text) {
    b.text = h("div", { class: "text", "data-testid": "assistant-text" });
    b.el.append(b.text);
    b.cards = undefined;
  }
  b.text.textContent += content;
  scrollDown();
}
function endText() {
  if (block) block.text = undefined;
}
function appendReasoning(content) {
  const b = ensureBlock();
  if (!b.reasoning) {
    b.reasoning = h("details", { class: "reasoning" }, h("summary", {}, "Reasoning"), h("div", { class: "body" }));
    b.el.append(b.reasoning);
  }
  b.reasoning.querySelector(".body").textContent += content;
}
function notice(kind, text) {
  ensureBlock().el.append(h("div", { class: `notice ${kind}`, "data-testid": `notice-${kind}` }, text));
  scrollDown();
}
function scrollDown() {
  if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 200)
    window.scrollTo(0, document.body.scrollHeight);
}

// ---- cards ----
// Calls shown by a panel of their own (the question, the plan) start collapsed.
const OWN_PANEL = new Set(["ask_user", "create_artifact"]);
function createCard({ id, name, args, depth, parentId, title }) {
  if (cards.has(id)) return cards.get(id);
  const parent = parentId ? cards.get(parentId) : undefined;
  const label = title ?? (name === "run_subtask" && args && typeof args.title === "string" ? args.title : undefined);
  const head = h(
    "button",
    {
      class: "card-head",
      type: "button",
      "aria-expanded": depth > 0 || OWN_PANEL.has(name) ? "false" : "true",
      onclick: () => toggle(card),
    },
    h("span", { class: "chev" }, "›"),
    h("span", { class: "dot" }),
    h("span", { class: "card-name" }, label ?? name, label ? h("span", { class: "tool" }, name) : null),
    h("span", { class: "card-meta" }, "running…"),
  );
  const body = h(
    "div",
    { class: "card-body" },
    args !== undefined && name !== "run_subtask"
      ? [h("div", { class: "label" }, "Input"), h("div", { class: "code args" }, preview(args))]
      : null,
    h("div", { class: "live" }),
    h("div", { class: "result-wrap" }),
    h("div", { class: "children" }),
  );
  // Cards of calls that have their own panel (question, plan) start collapsed too.
  const collapsed = depth > 0 || OWN_PANEL.has(name);
  const el = h(
    "div",
    {
      class: `card${collapsed ? " collapsed" : ""}`,
      "data-testid": "tool-card",
      "data-id": id,
      "data-depth": depth,
      "data-status": "running",
      "data-name": name,
    },
    head,
    body,
  );
  const card = { id, el, head, body, depth, name };
  cards.set(id, card);
  if (parent) parent.body.querySelector(".children").append(el);
  else {
    const b = ensureBlock();
    if (!b.cards) {
      b.cards = h("div", { class: "cards" });
      b.el.append(b.cards);
      b.text = undefined;
    }
    b.cards.append(el);
  }
  scrollDown();
  return card;
}
function toggle(card) {
  const collapsed = card.el.classList.toggle("collapsed");
  card.head.setAttribute("aria-expanded", String(!collapsed));
}
function finishCard({ id, name, result, isError, durationMs, depth = 0, parentId = null, denied = false }) {
  const card = cards.get(id) ?? createCard({ id, name, depth, parentId });
  const status = denied || card.el.dataset.status === "denied" ? "denied" : isError ? "error" : "done";
  card.el.dataset.status = status;
  card.head.querySelector(".card-meta").textContent =
    [status === "denied" ? "denied" : status === "error" ? "failed" : "", formatDuration(durationMs)]
      .filter(Boolean)
      .join(" · ") || "done";
  if (result !== undefined) {
    card.body
      .querySelector(".result-wrap")
      .replaceChildren(
        h("div", { class: "label" }, isError ? "Error" : "Result"),
        h("div", { class: `code result${isError ? " error" : ""}`, "data-testid": "card-result" }, preview(result)),
      );
  }
  card.body.querySelector(".live").textContent = "";
}

// ---- approvals, questions, plans ----
function resolvedNote(el, text) {
  el.classList.add("resolved");
  el.append(h("div", { class: "decision", "data-testid": "decision" }, text));
}
async function decide(requestId, body, url = `/api/approvals/${encodeURIComponent(requestId)}`) {
  for (const el of approvals.get(requestId)?.elements ?? [])
    el.querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    await post(url, body);
  } catch (error) {
    notice("error", `Could not send the decision: ${error.message}`);
  }
}

function planPanel(plan, actions) {
  return h(
    "div",
    { class: "panel plan", "data-testid": "plan-card" },
    h("div", { class: "kicker" }, "Plan for review"),
    h("h3", {}, plan.goal ?? "Plan"),
    h(
      "ol",
      {},
      (plan.steps ?? []).map((step) =>
        h("li", {}, step.action ?? String(step), step.reason ? h("div", { class: "why" }, step.reason) : null),
      ),
    ),
    plan.risks?.length ? h("div", { class: "risks" }, "Risks: ", plan.risks.join("; ")) : null,
    actions,
  );
}
function questionPanel(question, onAnswer) {
  return h(
    "div",
    { class: "panel question", "data-testid": "question-card" },
    h("div", { class: "kicker" }, question.severity === "critical" ? "Needs your answer" : "Question"),
    h("h3", {}, question.question),
    question.context ? h("div", { class: "why" }, question.context) : null,
    h(
      "div",
      { class: "actions" },
      (question.options ?? []).map((option) =>
        h(
          "button",
          {
            class: "secondary",
            type: "button",
            title: option.description,
            "data-testid": "answer",
            onclick: () => onAnswer(option.value, option.label),
          },
          option.label,
        ),
      ),
    ),
  );
}

function setTask(status) {
  taskPill.hidden = false;
  taskPill.dataset.status = status;
  taskPill.textContent = `Task: ${status.replace("_", " ")}`;
}

/** The plan card: Approve / Revise while the task awaits review, else what was decided. */
function showPlan(plan, status) {
  const feedback = h("textarea", { class: "feedback", rows: 2, placeholder: "What should change?", hidden: true });
  const panel = planPanel(
    plan,
    status === "awaiting_review"
      ? h(
          "div",
          { class: "actions" },
          h(
            "button",
            {
              class: "primary",
              type: "button",
              "data-testid": "plan-approve",
              onclick: () => reviewPlan(panel, "approve"),
            },
            "Approve",
          ),
          h(
            "button",
            {
              class: "secondary",
              type: "button",
              "data-testid": "plan-revise",
              onclick: () => {
                if (feedback.hidden) return void ((feedback.hidden = false), feedback.focus());
                reviewPlan(panel, "revise", feedback.value || "Please revise the plan.");
              },
            },
            "Revise",
          ),
          feedback,
        )
      : null,
  );
  if (status === "executing" || status === "completed" || status === "failed") resolvedNote(panel, "Approved");
  else if (status === "cancelled") resolvedNote(panel, "Cancelled");
  ensureBlock().el.append(panel);
  planPanelEl = status === "awaiting_review" ? panel : undefined;
  scrollDown();
}
async function reviewPlan(panel, action, feedback) {
  panel.querySelectorAll("button").forEach((b) => (b.disabled = true));
  resolvedNote(panel, action === "approve" ? "Approved" : `Sent back: ${feedback}`);
  planPanelEl = undefined;
  try {
    await post(`/api/tasks/${encodeURIComponent(taskId)}/${action}`, action === "revise" ? { feedback } : {});
  } catch (error) {
    notice("error", `Could not send the review: ${error.message}`);
  }
}

function showQuestion(questionId, question) {
  if (approvals.has(questionId)) return;
  // The ask_user call waiting for this answer (the question event names the request, not the call).
  const asking = [...cards.values()]
    .reverse()
    .find((card) => card.name === "ask_user" && card.el.dataset.status === "running");
  if (asking) {
    asking.el.dataset.status = "awaiting_approval";
    asking.head.querySelector(".card-meta").textContent = "waiting for you";
  }
  const entry = { toolCallId: asking?.id, elements: [] };
  approvals.set(questionId, entry);
  const panel = questionPanel(question, (value, label) => {
    resolvedNote(panel, `You answered: ${label}`);
    void decide(questionId, { value }, `/api/answers/${encodeURIComponent(questionId)}`);
  });
  entry.elements.push(panel);
  ensureBlock().el.append(panel);
  scrollDown();
}

function showApproval(request) {
  if (approvals.has(request.requestId)) return;
  const card =
    cards.get(request.toolCallId) ??
    createCard({
      id: request.toolCallId,
      name: request.name,
      args: request.args,
      depth: request.depth,
      parentId: request.parentId,
    });
  card.el.dataset.status = "awaiting_approval";
  card.head.querySelector(".card-meta").textContent = "waiting for you";
  const entry = { toolCallId: request.toolCallId, elements: [] };
  approvals.set(request.requestId, entry);
  const path = [];
  for (let at = cards.get(request.parentId); at; at = cards.get(at.el.parentElement?.closest(".card")?.dataset.id))
    path.unshift(at.head.querySelector(".card-name").firstChild.textContent);
  const item = h(
    "div",
    { class: "item", "data-testid": "approval" },
    h(
      "div",
      { class: "what" },
      h("strong", {}, request.name),
      " wants to run ",
      h("code", {}, preview(request.args, 120)),
      path.length ? h("div", { class: "why" }, `in ${path.join(" › ")}`) : null,
    ),
    h(
      "button",
      {
        class: "primary",
        type: "button",
        "data-testid": "approve",
        onclick: () => decide(request.requestId, { approved: true }),
      },
      "Approve",
    ),
    h(
      "button",
      {
        class: "secondary danger",
        type: "button",
        "data-testid": "deny",
        onclick: () => decide(request.requestId, { approved: false, reason: "Denied on the page" }),
      },
      "Deny",
    ),
  );
  attention.append(item);
  attention.hidden = false;
  entry.elements.push(item);
}
function approvalResolved(requestId, approved) {
  const entry = approvals.get(requestId);
  if (!entry) return;
  for (const el of entry.elements) {
    if (el.parentElement === attention) el.remove();
    else if (!el.classList.contains("resolved")) resolvedNote(el, approved ? "Approved" : "Declined");
  }
  attention.hidden = attention.childElementCount === 0;
  const card = cards.get(entry.toolCallId);
  if (card && card.el.dataset.status === "awaiting_approval") {
    card.el.dataset.status = approved ? "running" : "denied";
    card.head.querySelector(".card-meta").textContent = approved ? "running…" : "denied";
  }
}

// ---- events ----
function onEvent(event) {
  const root = event.depth === 0;
  switch (event.type) {
    case "session_snapshot":
      return rebuild(event);
    case "llm_call_start":
      setStatus("running");
      if (root) setActivity("Thinking…");
      return;
    case "tool_calls_preparing":
      if (root) setActivity(`Preparing: ${event.names.join(", ")}`);
      return;
    case "chunk":
      if (root) {
        setActivity("");
        if (event.content) appendText(event.content);
        if (event.done) endText();
      } else if (event.content) {
        const card = cards.get(event.parentId);
        if (card) card.body.querySelector(".live").textContent += event.content;
      }
      return;
    case "thinking":
      if (root) appendReasoning(event.content);
      return;
    case "tool_call_update":
      if (event.status === "start")
        createCard({
          id: event.toolCallId,
          name: event.name,
          args: event.args,
          depth: event.depth,
          parentId: event.parentId,
        });
      else
        finishCard({
          id: event.toolCallId,
          name: event.name,
          result: event.result,
          isError: event.isError,
          durationMs: event.durationMs,
          depth: event.depth,
          parentId: event.parentId,
        });
      return;
    case "approval_request":
      return showApproval(event.request);
    case "approval_resolved":
      return approvalResolved(event.requestId, event.approved);
    case "budget_exceeded":
      return notice(
        "warn",
        `Budget reached: ${event.reason} (limit ${event.limit}, used ${event.observed}). The turn stopped; what was done so far is kept.`,
      );
    case "warning":
      return notice("info", event.message);
    case "error":
      if (root) notice("error", event.message);
      return;
    case "done": {
      setActivity("");
      setStatus(event.result.status);
      endText();
      return;
    }
    // The task's lifecycle (runtime.tasks): plan, review, act.
    case "task_status":
      taskId = event.taskId;
      setTask(event.to);
      if (planPanelEl && event.to !== "awaiting_review") {
        resolvedNote(
          planPanelEl,
          event.to === "planning" ? "Sent back" : event.to === "cancelled" ? "Cancelled" : "Approved",
        );
        planPanelEl.querySelectorAll("button").forEach((b) => (b.disabled = true));
        planPanelEl = undefined;
      }
      if (event.to === "planning") setActivity("Planning…");
      return;
    case "planning_started":
      setActivity("Writing the plan…");
      return;
    case "plan_ready":
      setActivity("");
      return showPlan(event.plan, "awaiting_review");
    case "question":
      return showQuestion(event.questionId, event.question);
    default:
      return; // message, usage, ...: nothing to draw
  }
}

/** Rebuilds the page from stored state: messages, sub-task frames, execution trees, pending approvals. */
function rebuild(snapshot, state) {
  reset();
  if (state.task) {
    taskId = state.task.taskId;
    setTask(state.task.status);
  }
  const results = new Map();
  const collectResults = (messages) => {
    for (const m of messages) if (m.role === "tool") for (const part of m.content) results.set(part.toolCallId, part);
  };
  collectResults(snapshot.messages);
  for (const frame of Object.values(snapshot.frames)) collectResults(frame);
  const nodes = new Map();
  for (const m of snapshot.messages)
    if (m.role === "assistant" && m.executionTree) for (const node of m.executionTree.nodes) nodes.set(node.id, node);

  const drawCalls = (messages, depth, parentId) => {
    for (const m of messages) {
      if (m.role !== "assistant") continue;
      for (const part of m.content) {
        if (depth === 0 && part.type === "text" && part.text) (appendText(part.text), endText());
        if (part.type !== "tool_call") continue;
        createCard({ id: part.id, name: part.name, args: part.args, depth, parentId });
        if (part.name === "create_artifact" && state.plan && state.plan.artifactId === `artifact:${part.id}`)
          showPlan(state.plan, state.task.status);
        if (part.name === "run_subtask" && snapshot.frames[part.id])
          drawCalls(snapshot.frames[part.id], depth + 1, part.id);
        const result = results.get(part.id);
        const node = nodes.get(part.id);
        if (result)
          finishCard({
            id: part.id,
            name: part.name,
            result: result.result,
            isError: result.isError,
            durationMs: node?.duration_ms,
          });
      }
    }
  };
  // Execution-tree nodes whose frames are no longer stored still get their cards.
  const drawTree = () => {
    for (const node of nodes.values()) {
      if (cards.has(node.id)) continue;
      const parentDepth = node.parent_id ? Number(cards.get(node.parent_id)?.depth ?? 0) : -1;
      createCard({
        id: node.id,
        name: node.name,
        title: node.title,
        args: node.args_preview,
        depth: parentDepth + 1,
        parentId: node.parent_id,
      });
      finishCard({
        id: node.id,
        name: node.name,
        result: node.result_preview,
        isError: node.is_error,
        durationMs: node.duration_ms,
      });
    }
  };

  for (const m of snapshot.messages) {
    if (m.role === "user") {
      if (m.silent) continue;
      const text = typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("");
      // The task API's own messages to the model (plan approved / sent back) are not the person's words.
      if (taskId && text.startsWith("The plan is approved.")) continue;
      if (taskId && text.startsWith("Revise the plan with this feedback")) continue;
      addUser(text);
    } else if (m.role === "assistant") {
      drawCalls([m], 0, null);
    }
  }
  drawTree();
  for (const pending of snapshot.pendingApprovals) showApproval(pending.request);
  const questions = snapshot.pendingQuestions ?? [];
  for (const pending of questions) showQuestion(pending.questionId, pending.question);
  setStatus(
    snapshot.runningRunId ? "running" : snapshot.pendingApprovals.length + questions.length > 0 ? "suspended" : "idle",
  );
}

// ---- session and stream ----
/** Follows the session's events. A snapshot first fetches the task's state; events wait in order meanwhile. */
function follow() {
  const source = new EventSource(`/api/sessions/${encodeURIComponent(sessionId)}/events`);
  let chain = Promise.resolve();
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    chain = chain
      .then(async () => {
        if (event.type !== "session_snapshot") return onEvent(event);
        const state = await fetch(`/api/tasks/${encodeURIComponent(sessionId)}`).then((r) => r.json());
        rebuild(event, state);
      })
      .catch((error) => notice("error", `Could not show an update: ${error.message}`));
  };
  source.onopen = () => document.body.setAttribute("data-connected", "true");
}

$("#composer").addEventListener("submit", async (submit) => {
  submit.preventDefault();
  const input = $("#input");
  const content = input.value.trim();
  if (!content) return;
  input.value = "";
  addUser(content);
  setStatus("running");
  try {
    if (sessionId) await post(`/api/sessions/${encodeURIComponent(sessionId)}/messages`, { content });
    else {
      // A new chat's first message starts a task: plan, review, act.
      ({ sessionId } = await post("/api/tasks", { content }));
      taskId = sessionId;
      history.replaceState(null, "", `#session=${sessionId}`);
      follow();
    }
  } catch (error) {
    notice("error", `Could not send: ${error.message}`);
  }
});
$("#input").addEventListener("keydown", (key) => {
  if (key.key === "Enter" && !key.shiftKey) {
    key.preventDefault();
    $("#composer").requestSubmit();
  }
});
$("#new-chat").addEventListener("click", () => {
  location.hash = "";
  location.reload();
});
fetch("/api/info")
  .then((r) => r.json())
  .then((info) => ($("#footnote").textContent = `Model: ${info.provider} · Agentry runtime, SQLite store`))
  .catch(() => {});
sessionId = new URLSearchParams(location.hash.slice(1)).get("session") ?? undefined;
if (sessionId) follow();
document.body.setAttribute("data-ready", "true");

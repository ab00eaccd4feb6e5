import type { AgentRuntime, RuntimeEvent, SendInput, TurnResult } from "../contracts/agent-runtime.js";
import type { JsonValue } from "../contracts/json-schema.js";
import type { QuestionAnswer } from "../contracts/plan.js";
import type { SessionSelector } from "../contracts/session-store.js";
import { AgentryError } from "../errors/agentry-error.js";
import { InvalidArgumentError, SessionNotFoundError } from "../errors/errors.js";
import { AsyncQueue } from "../internal/async-queue.js";
import { parseChatBody, toolPartsOf, userContentOf, type ChatMessage, type ChatRequestBody } from "./chat-request.js";
import { toUIMessageStreamResponse } from "./to-ui-message-stream.js";
import type { UiErrorHandler } from "./ui-errors.js";
import { readBoundedBody } from "../internal/read-bounded-body.js";

/** Where `createChatHandler` sends a request: `route`'s answer (the host's auth lives in `route`). */
export interface RouteTarget<C = JsonValue> {
  agentId: string;
  /**
   * The tenant / end user the chat belongs to: the session must be in it, and every decision the
   * handler makes (approvals, answers, client results) is guarded by it.
   * @default undefined (the unscoped space, for single-user apps)
   */
  scope?: string;
  /**
   * The session. Left out, the chat's own id (`useChat`'s `id`) is the session id, and a new
   * chat's session is made with it on its first message (for `agentId`, in `scope`).
   * @default the chat's id
   */
  session?: SessionSelector;
  /** The turn's host context (`SendInput.context`). @default undefined */
  context?: C;
}

/** What `route` gets besides the request: the chat's id and the other fields of the body (`useChat`'s `body`). */
export interface ChatRouteInfo {
  chatId: string | undefined;
  body: Record<string, unknown>;
}

/** Options of `createChatHandler`. */
export interface ChatHandlerOptions<C = JsonValue> {
  runtime: AgentRuntime<C>;
  /**
   * Maps a request to its agent, scope, session and context: check the user here (a cookie, a
   * token). Throw a `Response` to answer with it instead (a 401, say); any other error is a 500.
   */
  route(request: Request, chat: ChatRouteInfo): RouteTarget<C> | Promise<RouteTarget<C>>;
  /** What the client sees of an error (as `toUIMessageStream`'s `onError`). @default every error masked */
  onError?: UiErrorHandler;
  /** The largest request body taken (bytes); a larger one is a 413. @default 4,194,304 (4 MiB) */
  maxBodyBytes?: number;
}

/** The default `maxBodyBytes`. */
export const DEFAULT_MAX_CHAT_BODY_BYTES = 4 * 1024 * 1024;

/**
 * A Fetch handler for everything AI SDK `useChat` (its `DefaultChatTransport`) sends, answered
 * with the turn as the UI message stream:
 *
 * - a new user message → `runtime.stream` (its text and file parts);
 * - the conversation sent back after `addToolApprovalResponse` → `resolveApproval` for each
 *   responded approval, then the resumed turn, continuing the same assistant message;
 * - after `addToolOutput` for an `ask_user` call (`output: { value }` or `{ text }`) →
 *   `answerQuestion`; for a client tool's call (a tool with no `execute`) → `submitToolResult`
 *   (`state: "output-error"`: its `errorText` as an error result);
 * - `trigger: "regenerate-message"` and an edited message (`sendMessage({ text, messageId })`).
 *
 * Only what the chat's session waits on is decided (its own requests and those of agents it waits
 * on), each guarded by the route's `scope`. Hostile bodies are refused before anything runs: over
 * `maxBodyBytes` 413, not JSON or not the transport's shape 400, an approval or tool call id that
 * nothing of the chat waits on 404, a request decided already 409.
 *
 * @example
 * ```ts
 * const handler = createChatHandler({
 *   runtime,
 *   route: async (request) => ({ agentId: "assistant", scope: await userIdOf(request) }),
 * });
 * export const POST = handler; // Next.js app router: app/api/chat/route.ts
 * ```
 */
export function createChatHandler<C = JsonValue>(
  options: ChatHandlerOptions<C>,
): (request: Request) => Promise<Response> {
  const { runtime, onError } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_CHAT_BODY_BYTES;
  if (typeof options.route !== "function")
    throw new InvalidArgumentError("createChatHandler: route must be a function");
  if (!runtime || typeof runtime.stream !== "function")
    throw new InvalidArgumentError("createChatHandler: runtime is required");
  const route = options.route.bind(options);
  if (!(Number.isSafeInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new InvalidArgumentError("createChatHandler: maxBodyBytes must be a whole number above 0");
  return async (request) => {
    if (request.method !== "POST") return problem(405, "Use POST");
    const text = await readBody(request, maxBodyBytes);
    if (typeof text !== "string") return text;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return problem(400, "The body is not JSON");
    }
    const body = parseChatBody(json);
    if (typeof body === "string") return problem(400, `Not a chat request: ${body}`);
    let target: RouteTarget<C>;
    try {
      target = await route(request, { chatId: body.id, body: body.extra });
      checkTarget(target);
    } catch (error) {
      if (error instanceof Response) return error;
      return problem(500, "The route failed");
    }
    try {
      return await answer({ runtime, target, body, request, onError });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** What one request's answer needs. */
interface Exchange<C> {
  runtime: AgentRuntime<C>;
  target: RouteTarget<C>;
  body: ChatRequestBody;
  request: Request;
  onError: UiErrorHandler | undefined;
}

/** Picks what the request asks for: a new (or edited, or regenerated) message, or a continuation. */
function answer<C>(exchange: Exchange<C>): Promise<Response> {
  const { body } = exchange;
  const last = body.messages.at(-1)!;
  if (body.trigger === "regenerate-message") return send(exchange, last, "regenerate");
  if (last.role === "assistant") return continueTurn(exchange, last);
  if (last.role !== "user") throw new InvalidArgumentError("the last message must be the user's or the assistant's");
  // useChat's sendMessage({ messageId }) replaced that message (an edit) and sends it as the last one.
  return send(exchange, last, body.messageId === last.id ? "edit" : "message");
}

/**
 * A chat request as a message's conversation fields: a new message keeps its UI id as
 * `messageId`; an edit (`sendMessage({ text, messageId })`) is sent with `editOf` and the same id;
 * a regeneration (`regenerate()`, of the last answer or of an earlier one: the client sends the
 * conversation up to the user message that answer replied to) is an edit of that user message with
 * its own content, so the runtime rewinds to before it and runs it again, in one step.
 */
function conversationFieldsOf(
  kind: "message" | "edit" | "regenerate",
  last: ChatMessage,
): Pick<SendInput<unknown>, "messageId" | "editOf"> {
  return kind === "message" ? { messageId: last.id } : { messageId: last.id, editOf: last.id };
}

/** A new, edited or regenerated message: the turn it starts, streamed. */
async function send<C>(exchange: Exchange<C>, last: ChatMessage, kind: "message" | "edit" | "regenerate") {
  const { runtime, target, body, request } = exchange;
  if (last.role !== "user") throw new InvalidArgumentError("the last message must be the user's");
  const conversation = conversationFieldsOf(kind, last);
  const content = userContentOf(last);
  if (content === undefined) throw new InvalidArgumentError("the message has no text or file to send");
  const session = await chatSession(runtime, target, body.id, true);
  const input: SendInput<C> = {
    agentId: target.agentId,
    content,
    session,
    signal: request.signal,
    ...(target.scope !== undefined && { scope: target.scope }),
    ...(target.context !== undefined && { context: target.context }),
    ...conversation,
  };
  const events = runtime.stream(input)[Symbol.asyncIterator]();
  // The first event (or the error that comes instead: a session of another tenant, a busy session) decides the status.
  const first = await events.next();
  return streamResponse(exchange, prepend(first, events), undefined);
}

/**
 * The conversation sent back after approvals, answers or client results: each is decided (only
 * what the chat's session waits on, guarded by the route's scope), and the turn they resume is
 * streamed as the continuation of the same assistant message.
 */
async function continueTurn<C>(exchange: Exchange<C>, last: ChatMessage): Promise<Response> {
  const { runtime, target, body } = exchange;
  const sessionId = await chatSession(runtime, target, body.id, false);
  const guard = target.scope !== undefined ? { scope: target.scope } : {};
  const query = { sessionId, ...guard };
  const [approvals, questions, calls] = await Promise.all([
    runtime.pendingApprovals(query),
    runtime.pendingQuestions(query),
    runtime.pendingToolCalls(query),
  ]);
  const decisions: (() => Promise<TurnResult>)[] = [];
  for (const part of toolPartsOf(last)) {
    const approval = part.approval;
    if (part.state === "approval-responded" && approval !== undefined) {
      if (!approvals.some((pending) => pending.requestId === approval.id)) continue;
      const reason = approval.reason !== undefined ? { reason: approval.reason } : {};
      decisions.push(() =>
        runtime.resolveApproval(approval.id, { approved: approval.approved === true, ...reason, ...guard }),
      );
    } else if (part.state === "output-available" || part.state === "output-error") {
      const failed = part.state === "output-error";
      if (calls.some((call) => call.toolCallId === part.toolCallId)) {
        const output = failed ? (part.errorText ?? "The client could not run the tool.") : part.output;
        decisions.push(() =>
          runtime.submitToolResult(part.toolCallId, { output, ...(failed && { isError: true }), sessionId, ...guard }),
        );
        continue;
      }
      const question = questions.find((pending) => pending.toolCallId === part.toolCallId);
      if (question === undefined) continue;
      if (failed || typeof part.output !== "object" || part.output === null)
        throw new InvalidArgumentError("an ask_user output must be { value } (an option's value) or { text }");
      const given = part.output as QuestionAnswer;
      decisions.push(() => runtime.answerQuestion(question.questionId, { ...given, ...guard }));
    }
  }
  if (decisions.length === 0)
    return problem(404, "Nothing this chat waits on matches the request (no pending approval, question or tool call)");
  return streamDecisions(exchange, sessionId, last.id, decisions);
}

/**
 * Makes the decisions in order and streams the session's events meanwhile: the turn the last
 * one resumes. An error before any event (not found, decided already, an invalid output) is the
 * response's status instead.
 */
async function streamDecisions<C>(
  exchange: Exchange<C>,
  sessionId: string,
  messageId: string,
  decisions: (() => Promise<TurnResult>)[],
): Promise<Response> {
  const { runtime } = exchange;
  const queue = new AsyncQueue<RuntimeEvent>();
  const listener = (event: RuntimeEvent) => {
    if (event.sessionId === sessionId) queue.push(event);
  };
  runtime.events.on("event", listener);
  const settled = (async () => {
    for (const decide of decisions) await decide();
  })().then(
    () => (runtime.events.off("event", listener), queue.end()),
    (error: unknown) => (runtime.events.off("event", listener), queue.end(error)),
  );
  // Wait for the first event or the end, whichever comes first.
  if (queue.size === 0) await Promise.race([queue.wait(), settled]);
  if (queue.size === 0) {
    const iterator = queue[Symbol.asyncIterator]();
    try {
      await iterator.next();
    } catch (error) {
      return errorResponse(error);
    }
    // Decided, and nothing resumed (another request of the turn still waits).
    return streamResponse(exchange, empty(), messageId);
  }
  return streamResponse(exchange, queue, messageId);
}

function streamResponse<C>(
  exchange: Exchange<C>,
  events: AsyncIterable<RuntimeEvent>,
  messageId: string | undefined,
): Response {
  return toUIMessageStreamResponse(events, {
    ...(messageId !== undefined && { messageId }),
    ...(exchange.onError !== undefined && { onError: exchange.onError }),
  });
}

async function* prepend(
  first: IteratorResult<RuntimeEvent>,
  rest: AsyncIterator<RuntimeEvent>,
): AsyncGenerator<RuntimeEvent> {
  if (first.done) return;
  yield first.value;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

// eslint-disable-next-line require-yield
async function* empty(): AsyncGenerator<RuntimeEvent> {
  return;
}

/**
 * The chat's session: the route's, else the chat id's (made on a new chat's first message). An
 * explicit id must be the route's agent's and in its scope, else "not found". For a new message a
 * selector (`"latest-or-create"`, ...) is the runtime's to resolve; a continuation needs a session
 * that exists.
 */
async function chatSession<C>(
  runtime: AgentRuntime<C>,
  target: RouteTarget<C>,
  chatId: string | undefined,
  create: boolean,
): Promise<string> {
  const selector = target.session ?? chatId;
  if (selector === undefined || selector === "")
    throw new InvalidArgumentError("the request has no chat id, and the route no session");
  const { agentId, scope } = target;
  if (selector === "latest" || selector === "latest-or-create" || selector === "create") {
    if (create) return selector;
    const [latest] = await runtime.store.listSessions({ agentId, scope: scope ?? null, limit: 1 });
    if (!latest) throw new SessionNotFoundError(selector);
    return latest.sessionId;
  }
  let session = await runtime.store.getSession(selector);
  if (!session && create && target.session === undefined) {
    try {
      session = await runtime.store.createSession({
        agentId,
        sessionId: selector,
        ...(scope !== undefined && { scope }),
      });
    } catch (error) {
      // Made by a concurrent request meanwhile: read it.
      session = await runtime.store.getSession(selector);
      if (!session) throw error;
    }
  }
  // Another tenant's, or another agent's, session is as unknown as a missing one.
  if (!session || session.scope !== scope || session.agentId !== agentId) throw new SessionNotFoundError(selector);
  return session.sessionId;
}

function checkTarget(target: RouteTarget<unknown>): void {
  if (typeof target !== "object" || target === null || typeof target.agentId !== "string" || target.agentId === "")
    throw new InvalidArgumentError("route must return { agentId }");
}

/** The body as text, at most `max` bytes (a 413 beyond, read no further). */
async function readBody(request: Request, max: number): Promise<string | Response> {
  return (await readBoundedBody(request, max)) ?? problem(413, `The body is over ${max} bytes`);
}

/** The status an error of a decision or a message is answered with. */
const STATUS_BY_ERROR: Record<string, number> = {
  InvalidArgumentError: 400,
  SessionNotFoundError: 404,
  AgentNotFoundError: 404,
  ApprovalNotFoundError: 404,
  SessionOwnershipError: 404,
  ApprovalAlreadyResolvedError: 409,
  ApprovalSupersededError: 409,
  PendingDecisionError: 409,
  SessionBusyError: 409,
};

function errorResponse(error: unknown): Response {
  if (AgentryError.isInstance(error)) {
    const status = STATUS_BY_ERROR[error.name];
    // The message of a typed misuse error names what was wrong with the request, nothing of the server.
    if (status !== undefined) return problem(status, error.message, error.name);
  }
  return problem(500, "The request failed");
}

function problem(status: number, message: string, code?: string): Response {
  return new Response(JSON.stringify({ error: message, ...(code !== undefined && { code }) }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

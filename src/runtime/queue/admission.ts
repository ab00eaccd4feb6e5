import { InvalidArgumentError, SessionNotFoundError } from "../../errors/errors.js";
import { escapeUserContent, systemMessage } from "../../messages/system-message.js";
import { resolveSession } from "../../sessions/resolve-session.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { RuntimeEvent, SendInput, SystemMessageTarget, TurnResult } from "../../contracts/agent-runtime.js";
import { fileProblems, withBase64Files } from "../../internal/file-data.js";
import { checkedContext } from "../../internal/host-context.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { AgentRuntimeOptions } from "../records/runtime-options.js";
import { checkScope } from "../records/scope-checks.js";
import { messageIdProblem } from "../records/rewind.js";
import type { TurnRequest, TurnStarter } from "../records/turn-request.js";
import type { AdmissionOrder } from "../session/admission-order.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { RuntimeStatus } from "../session/runtime-status.js";
import type { SessionGate } from "../session/session-gate.js";
import { agentOf } from "../agents/agent-lookups.js";
import { resolveModel } from "../agents/prepare-agent.js";
import { admitWhileBusy, type SteeringDeps } from "./steering.js";

/** What admitting messages needs. */
export interface AdmissionDeps {
  options: AgentRuntimeOptions;
  registry: AgentRegistry;
  store: GuardedSessionStore;
  status: RuntimeStatus;
  order: AdmissionOrder;
  gate: SessionGate;
  /** Where admitted turns go (the turn queue). */
  turns: TurnStarter;
  /** What a message sent to a session with a turn running needs (`ifBusy`). */
  steering: SteeringDeps;
}

/**
 * `send` / `stream`: checks the input, then, in admission order, resolves (or creates) the
 * session and queues the turn on it. Resolves with the turn's result (`queued` when the message
 * was stored behind a pending decision).
 */
export async function admitSend(
  deps: Readonly<AdmissionDeps>,
  input: SendInput,
  onEvent: (event: RuntimeEvent) => void,
): Promise<TurnResult> {
  deps.status.checkOpen();
  const agent = agentOf(deps.registry, input.agentId);
  const shape = checkShape(input);
  const content = input.content;
  checkScope("send", input.scope);
  const chatContext = input.chatContext ?? { kind: "thread" };
  const outputSchema = input.outputSchema as unknown;
  if (
    outputSchema !== undefined &&
    (outputSchema === null || typeof outputSchema !== "object" || Array.isArray(outputSchema))
  ) {
    throw new InvalidArgumentError("send: outputSchema must be a zod schema or a JSON Schema object");
  }
  const runId = input.runId as unknown;
  if (runId !== undefined && (typeof runId !== "string" || !/^[A-Za-z0-9_.:-]{1,128}$/.test(runId))) {
    throw new InvalidArgumentError("send: runId must be 1 to 128 letters, digits or -_.:");
  }
  const ifPending = input.ifPending as unknown;
  if (ifPending !== undefined && ifPending !== "queue" && ifPending !== "reject" && ifPending !== "supersede")
    throw new InvalidArgumentError('send: ifPending must be "queue", "reject" or "supersede"');
  const ifBusy = (input.ifBusy as unknown) ?? "queue";
  if (ifBusy !== "queue" && ifBusy !== "steer" && ifBusy !== "interrupt" && ifBusy !== "reject")
    throw new InvalidArgumentError('send: ifBusy must be "queue", "steer", "interrupt" or "reject"');
  const hostContext = input.context === undefined ? undefined : checkedContext("send", input.context);
  // Fail on a misconfigured agent before a session is created.
  resolveModel(deps.options, agent);
  const admitted = await deps.order.admit(async () => {
    const scope = input.scope === undefined ? {} : { scope: input.scope };
    const { session, created } = await resolveSession(deps.store, agent.agentId, input.session, scope);
    const request: TurnRequest = {
      agent,
      session,
      created,
      // File bytes are stored as base64: every stored record is plain JSON.
      ...(content !== undefined && { input: { role: "user", content: escapeUserContent(withBase64Files(content)) } }),
      ...shape,
      chatContext,
      chain: [],
      ...(input.runId !== undefined && { runId: input.runId }),
      ...(input.signal && { signal: input.signal }),
      ...(input.outputSchema !== undefined && { outputSchema: input.outputSchema }),
      ...(hostContext !== undefined && { context: hostContext }),
      ...(input.ifPending !== undefined && { ifPending: input.ifPending }),
      // Behind a decision, the host's message is stored and answered "queued" at once.
      durable: true,
      onEvent,
    };
    // Wrapped so the admission step does not wait for the turn itself.
    const turn =
      ifBusy === "queue" ? deps.turns.enqueue(request) : await admitWhileBusy(deps.steering, request, ifBusy);
    return { turn };
  });
  return admitted.turn;
}

/**
 * Checks `content` and the message ids of a send (`messageId`, `editOf`, `regenerate`) and returns
 * what the turn request carries of them. `regenerate` takes no content and no other id.
 */
function checkShape(input: SendInput): Pick<TurnRequest, "messageId" | "editOf" | "regenerate"> {
  const { content, messageId, editOf, regenerate } = input;
  if (regenerate !== undefined && typeof regenerate !== "boolean")
    throw new InvalidArgumentError("send: regenerate must be a boolean when set");
  if (regenerate === true) {
    if (content !== undefined || messageId !== undefined || editOf !== undefined)
      throw new InvalidArgumentError(
        "send: regenerate runs the last user message again: give no content, messageId or editOf",
      );
    return { regenerate: true };
  }
  if (typeof content === "string" ? content.length === 0 : !Array.isArray(content) || content.length === 0) {
    throw new InvalidArgumentError("send: content must be a non-empty string or a non-empty array of parts");
  }
  const problems = Array.isArray(content) ? fileProblems(content) : [];
  for (const [label, id] of [
    ["messageId", messageId],
    ["editOf", editOf],
  ] as const) {
    const problem = id === undefined ? undefined : messageIdProblem(label, id);
    if (problem !== undefined) problems.push(problem);
  }
  if (problems.length > 0) throw new InvalidArgumentError(`send: ${problems.join("; ")}`);
  return { ...(messageId !== undefined && { messageId }), ...(editOf !== undefined && { editOf }) };
}

/**
 * `postSystemMessage`: in admission order, finds the target session (or the agent's
 * `latest-or-create` one) and records the message (silent) or queues a turn on it. Resolves once
 * recorded, or once that turn has run.
 */
export async function admitSystemMessage(
  deps: Readonly<AdmissionDeps>,
  target: SystemMessageTarget,
  text: string,
  postOptions: { origin: string; silent?: boolean },
): Promise<void> {
  deps.status.checkOpen();
  if (!postOptions?.origin) throw new InvalidArgumentError("postSystemMessage: origin is required");
  const { sessionId, agentId } = target;
  if (sessionId === undefined && agentId === undefined)
    throw new InvalidArgumentError("postSystemMessage: target needs a sessionId or an agentId");
  checkScope("postSystemMessage", target.scope);
  if (sessionId === undefined && agentId !== undefined) agentOf(deps.registry, agentId);
  const { store } = deps;
  const admitted = await deps.order.admit(async () => {
    let session: SessionSummary;
    let created = false;
    if (sessionId !== undefined) {
      const found = await store.getSession(sessionId);
      // A session of another scope is as unknown as a missing one.
      if (!found || (target.scope !== undefined && found.scope !== target.scope))
        throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
      session = found;
    } else {
      const scope = target.scope === undefined ? {} : { scope: target.scope };
      // agentId is set here (checked above).
      ({ session, created } = await resolveSession(store, agentId ?? "", "latest-or-create", scope));
    }
    const agent = agentOf(deps.registry, session.agentId);
    const message = systemMessage(postOptions.origin, text, { silent: postOptions.silent === true });
    if (message.silent) return { done: deps.gate.record(session, message) };
    return {
      done: deps.turns.enqueue({
        agent,
        session,
        created,
        input: message,
        chatContext: { kind: "thread" },
        chain: [],
        durable: true,
      }),
    };
  });
  await admitted.done;
}

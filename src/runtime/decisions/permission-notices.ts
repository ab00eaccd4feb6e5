import { systemMessage } from "../../messages/system-message.js";
import { agentVisibility } from "../../agents/agent-visibility.js";
import type { ApprovalRequest } from "../../contracts/loop-result.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { SessionGate } from "../session/session-gate.js";
import { foregroundSession } from "../session/foreground-session.js";
import type { EventPublisher } from "../events/event-publisher.js";

/** What permission notices need. */
export interface PermissionNoticesDeps {
  store: GuardedSessionStore;
  registry: AgentRegistry;
  gate: SessionGate;
  events: Pick<EventPublisher, "report">;
}

type Deps = Readonly<PermissionNoticesDeps>;

/** When a permission request is announced to the foreground agent. */
export type PermissionPhase = "requested" | "decided";

/** Longest model-written text (permission, reason) quoted in a notice. */
const MAX_QUOTED_CHARS = 500;

/**
 * Where a permission notice of `asker` goes: the session that started it (a background agent's
 * parent), else the most recent foreground session of the asker's scope whose agent the asker's
 * agent may reach (`agentVisibility`: not hidden, in its agent allow and deny lists; as
 * `send_agent_message`'s default target). Never another scope, and nowhere when the asker's agent
 * is no longer registered.
 */
export async function permissionNoticeTarget(deps: Deps, asker: SessionSummary): Promise<SessionSummary | undefined> {
  const parentId = asker.attributes?.parentSessionId;
  if (typeof parentId === "string") {
    const parent = await deps.store.getSession(parentId);
    if (parent !== undefined && parent.scope === asker.scope) return parent;
  }
  const from = deps.registry.get(asker.agentId);
  if (!from) return undefined;
  return foregroundSession(deps, asker.scope, asker.sessionId, (agent) => agentVisibility(from, agent).visible);
}

/**
 * Permission forwarding: the asker's parent session (or the most recent foreground session of its
 * scope that it may reach, see {@link permissionNoticeTarget}) gets a silent system message when a
 * `request_permission` call is presented for approval and another when it is decided. The
 * model-written parts are cut at 500 characters and the wrapper escapes them, so they cannot close
 * or forge a `<system_message>` tag. Fire and forget: the target may be busy; the notes queue
 * behind its turn.
 */
export function notifyPermission(
  deps: Deps,
  phase: PermissionPhase,
  request: ApprovalRequest,
  asker: SessionSummary,
  decision?: { approved: boolean; reason?: string },
): void {
  void (async () => {
    const target = await permissionNoticeTarget(deps, asker);
    if (!target) return;
    const { permission, reason } = (request.args ?? {}) as { permission?: unknown; reason?: unknown };
    const who = `Agent "${asker.agentId}" (session ${asker.sessionId})`;
    const text =
      phase === "requested"
        ? `${who} asked the user for permission: ${quote(permission)}${reason !== undefined ? ` (reason: ${quote(reason)})` : ""}. Request ${request.requestId} is waiting for a decision.`
        : `${who} was ${decision?.approved ? "granted" : "refused"} permission: ${quote(permission)}${decision?.reason ? ` (${quote(decision.reason)})` : ""}.`;
    await deps.gate.record(target, systemMessage(asker.agentId, text, { silent: true }));
  })().catch((error: unknown) => deps.events.report("permission_notice_failed", error, asker));
}

function quote(value: unknown): string {
  if (value === undefined) return "(unspecified)";
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "(unspecified)");
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text;
}

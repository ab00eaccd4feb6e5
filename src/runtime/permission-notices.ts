import { systemMessage } from "../messages/system-message.js";
import type { ApprovalRequest } from "../loop/loop-types.js";
import type { SessionSummary } from "../sessions/session-store.js";
import type { RuntimeCore } from "./runtime-core.js";

/** When a permission request is announced to the foreground agent. */
export type PermissionPhase = "requested" | "decided";

/**
 * Seed 003 permission forwarding: the most recent foreground agent gets a silent system message
 * when a `request_permission` call is presented for approval and another when it is decided.
 * Fire and forget: the foreground session may be busy; the notes queue behind its turn.
 */
export function notifyPermission(
  core: RuntimeCore,
  phase: PermissionPhase,
  request: ApprovalRequest,
  asker: SessionSummary,
  decision?: { approved: boolean; reason?: string },
): void {
  void (async () => {
    const foreground = await core.foregroundSession(asker.sessionId);
    if (!foreground) return;
    const { permission, reason } = (request.args ?? {}) as { permission?: string; reason?: string };
    const who = `Agent "${asker.agentId}" (session ${asker.sessionId})`;
    const text =
      phase === "requested"
        ? `${who} asked the user for permission: ${permission ?? "(unspecified)"}${reason ? ` (reason: ${reason})` : ""}. Request ${request.requestId} is waiting for a decision.`
        : `${who} was ${decision?.approved ? "granted" : "refused"} permission: ${permission ?? "(unspecified)"}${decision?.reason ? ` (${decision.reason})` : ""}.`;
    await core.record(foreground, systemMessage(asker.agentId, text, { silent: true }));
  })().catch(() => undefined);
}

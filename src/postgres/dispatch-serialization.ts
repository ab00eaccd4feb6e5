import type { AgentryError } from "../errors/agentry-error.js";
import {
  AgentNotFoundError,
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  ApprovalSupersededError,
  PendingDecisionError,
  DispatchError,
  InvalidArgumentError,
  LeaseLostError,
  SessionBusyError,
  SessionNotFoundError,
  SessionStoreError,
} from "../errors/errors.js";
import type { SerializedError } from "./dispatch-job.js";

/** JSON text of a value (events carry tool results: anything); what cannot be written says so. */
export function safeJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === "bigint") return v.toString();
        if (v instanceof Error) return { name: v.name, message: v.message };
        return v;
      }) ?? "null"
    );
  } catch (error) {
    const type = (value as { type?: unknown })?.type;
    return JSON.stringify({
      type: typeof type === "string" ? type : "unserializable",
      unserializable: error instanceof Error ? error.message : String(error),
    });
  }
}

/** The fields of an error a caller in another process rebuilds it from. */
export function serializeError(error: unknown): SerializedError {
  const e = error as { name?: unknown; message?: unknown; requestId?: unknown; sessionId?: unknown; agentId?: unknown };
  const out: SerializedError = {
    name: typeof e?.name === "string" ? e.name : "Error",
    message: typeof e?.message === "string" ? e.message : String(error),
  };
  if (typeof e?.requestId === "string") out.requestId = e.requestId;
  if (typeof e?.sessionId === "string") out.sessionId = e.sessionId;
  if (typeof e?.agentId === "string") out.agentId = e.agentId;
  const requestIds = (e as { requestIds?: unknown }).requestIds;
  if (Array.isArray(requestIds) && requestIds.every((id) => typeof id === "string")) out.requestIds = requestIds;
  return out;
}

/** The worker's error as this process's class of it (the typed errors callers branch on), else `DispatchError`. */
export function rebuildError(error: SerializedError): AgentryError {
  switch (error.name) {
    case "ApprovalAlreadyResolvedError":
      return new ApprovalAlreadyResolvedError(error.requestId ?? "");
    case "ApprovalSupersededError":
      return new ApprovalSupersededError(error.requestId ?? "");
    case "PendingDecisionError":
      return new PendingDecisionError(error.sessionId ?? "", error.requestIds ?? []);
    case "ApprovalNotFoundError":
      return new ApprovalNotFoundError(error.requestId ?? "");
    case "AgentNotFoundError":
      return new AgentNotFoundError(error.agentId ?? "");
    case "SessionNotFoundError":
      return new SessionNotFoundError(error.message, {
        ...(error.sessionId !== undefined && { sessionId: error.sessionId }),
      });
    case "InvalidArgumentError":
      return new InvalidArgumentError(error.message);
    case "SessionStoreError":
      return new SessionStoreError(error.message);
    case "SessionBusyError":
      return new SessionBusyError(error.sessionId ?? "", 0);
    case "LeaseLostError":
      return new DispatchError(error.message, { remoteName: LeaseLostError.errorName });
    default:
      return new DispatchError(error.message, { remoteName: error.name });
  }
}

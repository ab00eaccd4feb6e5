import type { SessionSummary } from "../../contracts/session-store.js";

/** Session attributes that mark a background agent's session. */
export interface BackgroundAttributes {
  background: true;
  parentSessionId: string;
  parentAgentId: string;
  /** Set once the parent was told of a failure (it is told once). */
  failureNotified?: true;
  /** Where it is in its lifecycle (see `SubagentStatus`). */
  lifecycle?: "created" | "running" | "waiting_for_merge" | "completed" | "failed" | "closed";
  /** The only tools its turns get (`start_background_agent`'s `tools`, within its parent's). */
  toolSubset?: string[];
  /** Its time budget (`start_background_agent`'s `timeoutMs`) and when it ends (epoch ms): every turn stops there. */
  timeoutMs?: number;
  deadlineAt?: number;
}

/** Whether a session belongs to a background agent. */
export function isBackground(session: SessionSummary): boolean {
  return session.attributes?.background === true;
}

/** The tool names a background session is limited to (`toolSubset` attribute), or undefined. */
export function toolSubsetOf(session: SessionSummary): string[] | undefined {
  const subset = session.attributes?.toolSubset;
  return Array.isArray(subset) ? subset.filter((name): name is string => typeof name === "string") : undefined;
}

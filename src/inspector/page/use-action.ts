import { useState } from "preact/hooks";
import type { ActionResponse } from "../inspector-api-types.js";
import type { InspectorClient } from "./api.js";

/** Where an action button stands: not sent, on its way, done (with what to show), or refused. */
export type ActionState =
  | { status: "idle" }
  | { status: "sending" }
  | { status: "done"; message: string }
  | { status: "failed"; message: string };

/** What a refused action shows when someone decided first (the server answered 409). */
export const ALREADY_DECIDED = "already decided";

/** The message shown for a refused action: 409 is always "already decided". */
export function failureMessage(status: number, error: string): string {
  if (status === 409) return ALREADY_DECIDED;
  if (status === 403) return `not allowed: ${error}`;
  if (status === 404) return "not found";
  return error;
}

/**
 * One POST action of the page (approve, deny, answer, task decisions): sends it once, shows
 * the outcome, and lets it be clicked again after a failure (the server answers 409 then).
 * `onSettled` is told the outcome of every attempt.
 */
export function useAction(client: InspectorClient, onSettled?: (outcome: ActionState) => void) {
  const [state, setState] = useState<ActionState>({ status: "idle" });
  const run = async (path: string, body: unknown, doneMessage: string) => {
    setState({ status: "sending" });
    const result = await client.post<ActionResponse>(path, body);
    const status = result.ok ? result.data?.status : undefined;
    const outcome: ActionState = result.ok
      ? { status: "done", message: status ? `${doneMessage} (turn ${status})` : doneMessage }
      : { status: "failed", message: failureMessage(result.status, result.error) };
    setState(outcome);
    onSettled?.(outcome);
  };
  return { state, run };
}

import { useState } from "preact/hooks";
import type { ActionResponse } from "../inspector-api-types.js";
import type { InspectorClient } from "./api.js";

/** Where an action button stands: not sent, on its way, done (with what to show), or refused. */
export type ActionState =
  | { status: "idle" }
  | { status: "sending" }
  | { status: "done"; message: string }
  | { status: "failed"; message: string };

/** The message shown for a refused action: 409 is always "already decided". */
export function failureMessage(status: number, error: string): string {
  if (status === 409) return "already decided";
  if (status === 403) return `not allowed: ${error}`;
  if (status === 404) return "not found";
  return error;
}

/**
 * One POST action of the page (approve, deny, answer, task decisions): sends it once, shows
 * the outcome, and lets it be clicked again after a failure (the server answers 409 then).
 */
export function useAction(client: InspectorClient, onDone?: () => void) {
  const [state, setState] = useState<ActionState>({ status: "idle" });
  const run = async (path: string, body: unknown, doneMessage: string) => {
    setState({ status: "sending" });
    const result = await client.post<ActionResponse>(path, body);
    if (result.ok) {
      const status = result.data?.status;
      setState({ status: "done", message: status ? `${doneMessage} (turn ${status})` : doneMessage });
      onDone?.();
    } else setState({ status: "failed", message: failureMessage(result.status, result.error) });
  };
  return { state, run };
}

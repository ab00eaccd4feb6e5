import { useEffect, useState } from "preact/hooks";
import type { LiveMessage, TurnNode } from "../inspector-api-types.js";

/** Inserts or replaces `turn` (by run id), keeping the turns in turn order. */
export function upsertTurn(turns: readonly TurnNode[], turn: TurnNode): TurnNode[] {
  const at = turns.findIndex((t) => t.runId === turn.runId);
  if (at >= 0) return turns.map((t, i) => (i === at ? turn : t));
  const next = [...turns, turn];
  // Appended at the end in the usual case, so the rows on screen stay where they are.
  if (turns.length > 0 && turns[turns.length - 1]!.turnNumber > turn.turnNumber)
    next.sort((a, b) => a.turnNumber - b.turnNumber);
  return next;
}

function parse(data: unknown): LiveMessage | undefined {
  if (typeof data !== "string") return undefined;
  try {
    const value = JSON.parse(data) as Partial<LiveMessage>;
    return value && (value.type === "turn" || value.type === "record") ? (value as LiveMessage) : undefined;
  } catch {
    return undefined;
  }
}

/** `connecting` until the stream opens, `live` while it is open, `closed` when it failed for good. */
export type LiveState = "connecting" | "live" | "closed";

/**
 * Follows `{base}api/sessions/:id/live` (server-sent events) while `enabled`, and hands each
 * refreshed turn to `onTurn`. EventSource reconnects by itself, resuming after the last seq
 * (`Last-Event-ID`).
 */
export function useLiveTurns(url: string | undefined, onTurn: (turn: TurnNode) => void): LiveState {
  const [state, setState] = useState<LiveState>("connecting");
  useEffect(() => {
    if (!url) return;
    const source = new EventSource(url);
    const onMessage = (event: MessageEvent) => {
      const message = parse(event.data);
      if (message?.type === "turn") onTurn(message.turn);
    };
    source.addEventListener("turn", onMessage);
    source.addEventListener("message", onMessage);
    source.onopen = () => setState("live");
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? "closed" : "connecting");
    return () => source.close();
  }, [url]);
  return state;
}

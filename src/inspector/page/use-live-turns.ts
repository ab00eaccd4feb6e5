import { useEffect, useState } from "preact/hooks";
import type { LiveMessage, TurnNode } from "../inspector-api-types.js";

/** `turn` numbered `turnNumber` (its "Turn N" label prefix too). */
function numbered(turn: TurnNode, turnNumber: number): TurnNode {
  if (turn.turnNumber === turnNumber) return turn;
  const prefix = `Turn ${turn.turnNumber}`;
  const label = turn.label.startsWith(prefix) ? `Turn ${turnNumber}${turn.label.slice(prefix.length)}` : turn.label;
  return { ...turn, turnNumber, label };
}

/**
 * Inserts or replaces `turn` (by run id). A live refresh does not always know the turn's place in
 * the session: a known turn keeps the number it was listed with, a new one follows the last.
 * Appended at the end, so the rows on screen stay where they are.
 */
export function upsertTurn(turns: readonly TurnNode[], turn: TurnNode): TurnNode[] {
  const at = turns.findIndex((t) => t.runId === turn.runId);
  if (at >= 0) return turns.map((t, i) => (i === at ? numbered(turn, t.turnNumber) : t));
  const last = turns[turns.length - 1]?.turnNumber;
  return [...turns, last !== undefined && turn.turnNumber <= last ? numbered(turn, last + 1) : turn];
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

/** `connecting` until the stream opens (and again while it reconnects), `live` while it is open. */
export type LiveState = "connecting" | "live";

/** Wait before opening the stream again after it failed. */
const RETRY_MS = 2_000;

/**
 * Follows `{base}api/sessions/:id/live` (server-sent events) while `url` is set, and hands each
 * refreshed turn to `onTurn`. After an error it opens the stream again from the last seq seen
 * (`afterSeq`), so nothing is missed and nothing already shown is replayed twice. It starts after
 * `fromSeq` (0 replays the whole log, which costs the server a read of every record).
 */
export function useLiveTurns(url: string | undefined, fromSeq: number, onTurn: (turn: TurnNode) => void): LiveState {
  const [state, setState] = useState<LiveState>("connecting");
  useEffect(() => {
    if (!url) return;
    let afterSeq = fromSeq;
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onMessage = (event: MessageEvent) => {
      const message = parse(event.data);
      if (!message) return;
      afterSeq = Math.max(afterSeq, message.seq);
      if (message.type === "turn") onTurn(message.turn);
    };
    const open = () => {
      source = new EventSource(`${url}${url.includes("?") ? "&" : "?"}afterSeq=${afterSeq}`);
      source.addEventListener("turn", onMessage);
      source.addEventListener("record", onMessage);
      source.onopen = () => setState("live");
      source.onerror = () => {
        source?.close();
        setState("connecting");
        timer = setTimeout(open, RETRY_MS);
      };
    };
    open();
    return () => {
      clearTimeout(timer);
      source?.close();
    };
  }, [url]);
  return state;
}

import type { HistoryRecord } from "../contracts/session-store.js";
import type { ModelCallRecord, PromptRecord } from "../contracts/session-store.js";
import type { RuntimeTurnRecord } from "../runtime/create-agent-runtime.js";

/** Every kind of record the inspector reads (the store's, and the runtime's own kinds). */
export type InspectedRecord = HistoryRecord | RuntimeTurnRecord | ModelCallRecord | PromptRecord;

/** A turn and the turns that resumed it (one user message's work), with their records in order. */
export interface TurnChain {
  /** The run id of the turn that started the chain. */
  runId: string;
  /** Every run id of the chain (resumptions included). */
  runIds: Set<string>;
  start: RuntimeTurnRecord;
  /** The last end record, when the chain ended. */
  end?: RuntimeTurnRecord;
  records: InspectedRecord[];
}

/**
 * The session's records grouped by turn chain, in order (records before the first turn are left
 * out). A compaction a turn made before it started (stored just before its start) is that turn's;
 * one made by `runtime.compact` belongs to the turn before it.
 */
export function turnChains(stored: HistoryRecord[]): TurnChain[] {
  const records: InspectedRecord[] = stored;
  const chains: TurnChain[] = [];
  const byRun = new Map<string, TurnChain>();
  let current: TurnChain | undefined;
  let opening: InspectedRecord[] = [];
  for (const record of records) {
    if (record.kind === "compaction" && record.runId !== undefined) {
      opening.push(record);
      continue;
    }
    if (record.kind === "turn") {
      const turn: RuntimeTurnRecord = record;
      if (turn.phase === "start") {
        const resumed = turn.resumeOf === undefined ? undefined : byRun.get(turn.resumeOf);
        current = resumed ?? { runId: turn.runId, runIds: new Set(), start: turn, records: [] };
        if (!resumed) chains.push(current);
        current.records.push(...opening.filter((r) => r.kind === "compaction" && r.runId === turn.runId));
        opening = [];
        current.runIds.add(turn.runId);
        byRun.set(turn.runId, current);
        continue;
      }
      const chain = byRun.get(turn.runId) ?? current;
      if (chain) chain.end = turn;
      continue;
    }
    current?.records.push(record);
  }
  return chains;
}

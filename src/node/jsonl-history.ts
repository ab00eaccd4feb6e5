/// <reference types="node" />
import { InvalidArgumentError, SessionStoreError } from "../errors/errors.js";
import type { HistoryRecord } from "../contracts/session-store.js";

/**
 * Written on every line of a multi-record batch: the batch's last seq. A crash in the middle of
 * a batch leaves a trailing line whose `seq` is below its `$batch`; that batch is dropped on
 * load, so an append is all or nothing on disk too. Never returned by `load`.
 */
const BATCH = "$batch";

/** What is in a `history.jsonl` file (or in its tail, read from `base`). */
export interface HistoryScan {
  /** The committed records, in file order. */
  records: HistoryRecord[];
  /** File offset of each record's line. */
  starts: number[];
  /** Length of the prefix holding those records; bytes after it are a torn line or an unfinished batch. */
  committedBytes: number;
}

/**
 * Parses a history file. A last line without its newline (a torn write) and the lines of an
 * unfinished trailing batch are left out. Any other line that is not a record, or a `seq` other
 * than the next one (seqs are 1, 2, 3... so line n holds seq n), is corruption: a
 * {@link SessionStoreError} naming the file and line. A tail read from `base` starts at `firstLine`.
 */
export function scanHistory(buffer: Buffer, file: string, base = 0, firstLine = 1): HistoryScan {
  const records: (HistoryRecord & { [BATCH]?: number })[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let start = 0;
  for (let line = firstLine; ; line++) {
    const newline = buffer.indexOf(10, start);
    if (newline === -1) break;
    if (newline > start) {
      let record: unknown;
      try {
        record = JSON.parse(buffer.toString("utf8", start, newline));
      } catch (error) {
        throw new SessionStoreError(`Corrupt session history ${file}: line ${line} is not valid JSON`, {
          cause: error,
        });
      }
      const { id, seq } = (record ?? {}) as { id?: unknown; seq?: unknown };
      const expected = (records.at(-1)?.seq ?? firstLine - 1) + 1;
      if (typeof id !== "string" || seq !== expected) {
        throw new SessionStoreError(
          `Corrupt session history ${file}: line ${line} is not a record with seq ${expected}`,
        );
      }
      records.push(record as HistoryRecord);
      starts.push(base + start);
      ends.push(base + newline + 1);
    }
    start = newline + 1;
  }
  const last = records.at(-1);
  const unfinished = last?.[BATCH];
  if (last && unfinished !== undefined && last.seq < unfinished) {
    while (records.length > 0 && records.at(-1)![BATCH] === unfinished) {
      records.pop();
      starts.pop();
      ends.pop();
    }
  }
  for (const record of records) delete record[BATCH];
  return { records, starts, committedBytes: ends.at(-1) ?? base };
}

/** The lines of one append, and the records as `load` will return them. */
export function serializeBatch(records: HistoryRecord[]): { text: string; stored: HistoryRecord[] } {
  const lastSeq = records.at(-1)?.seq;
  const lines: string[] = [];
  const stored: HistoryRecord[] = [];
  records.forEach((record, index) => {
    let json: string;
    try {
      json = JSON.stringify(record);
    } catch (error) {
      throw new InvalidArgumentError(`append: records[${index}] is not plain JSON (nothing was stored)`, {
        cause: error,
      });
    }
    stored.push(JSON.parse(json) as HistoryRecord);
    lines.push(records.length === 1 ? json : `${json.slice(0, -1)},"${BATCH}":${lastSeq}}`);
  });
  return { text: lines.length === 0 ? "" : `${lines.join("\n")}\n`, stored };
}

/**
 * What a store instance remembers of a history file, to append and load without re-reading it:
 * valid while the file is the same (`ino`) and still `bytes` long. `starts[seq - 1]` is the offset
 * of record `seq` (seqs in a file are 1, 2, 3...).
 */
export interface HistoryIndex {
  ino: number;
  bytes: number;
  ids: Map<string, number>;
  starts: number[];
  /** Seq and frame of every reset marker, in order. */
  resets: { seq: number; frame: string | null }[];
}

/** The index of a whole-file scan. */
export function indexHistory(scan: HistoryScan, ino: number): HistoryIndex {
  const index: HistoryIndex = { ino, bytes: scan.committedBytes, ids: new Map(), starts: scan.starts, resets: [] };
  for (const record of scan.records) noteRecord(index, record);
  return index;
}

/** Adds a record to an index (its start offset is added by the caller). */
export function noteRecord(index: HistoryIndex, record: HistoryRecord): void {
  index.ids.set(record.id, record.seq);
  if (record.kind === "reset") index.resets.push({ seq: record.seq, frame: record.frame });
}

/** The seq after which `load` starts, from the index alone. */
export function lowerBound(
  index: HistoryIndex,
  options: { afterSeq?: number; sinceLastReset?: boolean; frame?: string | null },
): number {
  let after = Math.max(0, options.afterSeq ?? 0);
  if (options.sinceLastReset) {
    for (let i = index.resets.length - 1; i >= 0; i--) {
      const reset = index.resets[i]!;
      if (options.frame === undefined || reset.frame === options.frame) {
        after = Math.max(after, reset.seq);
        break;
      }
    }
  }
  return Math.min(after, index.starts.length);
}

/// <reference types="node" />
import { InvalidArgumentError, SessionStoreError } from "../errors/errors.js";
import type { HistoryRecord } from "../sessions/session-store.js";

/**
 * Written on every line of a multi-record batch: the batch's last seq. A crash in the middle of
 * a batch leaves a trailing line whose `seq` is below its `$batch`; that batch is dropped on
 * load, so an append is all or nothing on disk too. Never returned by `load`.
 */
const BATCH = "$batch";

/** What is in a `history.jsonl` file. */
export interface HistoryScan {
  /** The committed records, in file order. */
  records: HistoryRecord[];
  /** Length of the prefix holding those records; bytes after it are a torn line or an unfinished batch. */
  committedBytes: number;
}

/**
 * Parses a history file. A last line without its newline (a torn write) and the lines of an
 * unfinished trailing batch are left out. Any other line that is not a record, or a `seq` that
 * does not increase, is corruption: a {@link SessionStoreError} naming the file and line.
 */
export function scanHistory(buffer: Buffer, file: string): HistoryScan {
  const records: (HistoryRecord & { [BATCH]?: number })[] = [];
  const ends: number[] = [];
  let start = 0;
  for (let line = 1; ; line++) {
    const newline = buffer.indexOf(10, start);
    if (newline === -1) break;
    if (newline > start) {
      let record: unknown;
      try {
        record = JSON.parse(buffer.toString("utf8", start, newline));
      } catch (error) {
        throw new SessionStoreError(`Corrupt session history ${file}: line ${line} is not valid JSON`, { cause: error });
      }
      const { id, seq } = (record ?? {}) as { id?: unknown; seq?: unknown };
      if (typeof id !== "string" || typeof seq !== "number" || seq <= (records.at(-1)?.seq ?? 0)) {
        throw new SessionStoreError(`Corrupt session history ${file}: line ${line} is not a record with an increasing seq`);
      }
      records.push(record as HistoryRecord);
      ends.push(newline + 1);
    }
    start = newline + 1;
  }
  const last = records.at(-1);
  const unfinished = last?.[BATCH];
  if (last && unfinished !== undefined && last.seq < unfinished) {
    while (records.length > 0 && records.at(-1)![BATCH] === unfinished) {
      records.pop();
      ends.pop();
    }
  }
  for (const record of records) delete record[BATCH];
  return { records, committedBytes: ends.at(-1) ?? 0 };
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
      throw new InvalidArgumentError(`append: records[${index}] is not plain JSON (nothing was stored)`, { cause: error });
    }
    stored.push(JSON.parse(json) as HistoryRecord);
    lines.push(records.length === 1 ? json : `${json.slice(0, -1)},"${BATCH}":${lastSeq}}`);
  });
  return { text: lines.length === 0 ? "" : `${lines.join("\n")}\n`, stored };
}

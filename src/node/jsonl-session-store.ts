/// <reference types="node" />
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { AgentryError } from "../errors/agentry-error.js";
import { InvalidArgumentError, SessionStoreError } from "../errors/errors.js";
import {
  checkListQuery,
  matchesListQuery,
  newSessionSummary,
  parseOlderThan,
  patchSessionSummary,
  sessionNotFound,
  type CreateSessionInit,
  type ListSessionsQuery,
  type SessionPatch,
} from "../internal/session-arguments.js";
import { KeyedSerializer } from "../internal/keyed-serializer.js";
import { orderFromIso, SessionClock } from "../internal/session-clock.js";
import { checkLoadOptions, checkNewRecords, selectRecords, stampRecord } from "../internal/session-records.js";
import type {
  HistoryRecord,
  LoadOptions,
  NewRecord,
  PrunableSessionStore,
  SessionSummary,
} from "../contracts/session-store.js";
import { createFileExclusive, errorCode, readJsonFile, syncDirectory, writeFileAtomic } from "./jsonl-files.js";
import {
  indexHistory,
  lowerBound,
  noteRecord,
  scanHistory,
  serializeBatch,
  type HistoryIndex,
} from "./jsonl-history.js";

const DESCRIPTOR = "descriptor.json";
const STATE = "state.json";
const HISTORY = "history.jsonl";
const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
/** History indexes kept per store instance (least recently used dropped first). */
const MAX_INDEXES = 1000;

/** `descriptor.json`: who the session is. Written once. */
interface Descriptor {
  version: 1;
  sessionId: string;
  agentId: string;
  createdAt: string;
  scope?: string;
}
/**
 * `state.json`: what changes. `order` sorts sessions updated in the same millisecond. It repeats
 * `agentId` and `createdAt` so that listing reads one file per session (`descriptor.json` stays
 * the identity: it is written first and read when the copy is missing).
 */
type State = Pick<SessionSummary, "name" | "pinnedAt" | "attributes" | "lastSnippet" | "updatedAt"> &
  Partial<Pick<SessionSummary, "agentId" | "createdAt" | "scope">> & { lastSeq: number; order?: number };

/** Options of {@link JsonlSessionStore}. */
export interface JsonlSessionStoreOptions {
  /** Directory holding one sub-directory per session; created on the first write. */
  root: string;
  /**
   * Flush every write to disk (`fsync`) before resolving, so an acknowledged append survives a
   * power loss. Without it a process crash still loses nothing, an OS crash may lose the last writes.
   * @default true
   */
  fsync?: boolean;
}

/**
 * A `SessionStore` (from `@agentry/core`) in plain files, one directory per session:
 * `<root>/<sessionId>/descriptor.json` (sessionId, agentId, createdAt), `state.json` (name,
 * pinnedAt, attributes, lastSnippet, updatedAt, lastSeq) and `history.jsonl` (one record per line).
 *
 * Crash safety: metadata files are replaced atomically (temp file, fsync, rename); a torn last
 * line, or the lines of a batch cut short by a crash, are left out on load and cut off before the
 * next append, so an append is all or nothing on disk too. A corrupt line elsewhere is a
 * `SessionStoreError` naming the file and line.
 *
 * Concurrency: writes to one session are queued in this instance. Several instances (processes)
 * may share a root: sessions created, updated or deleted by one are seen by the others, and a
 * writer notices history appended by another instance (the file size changed) and re-reads it
 * before appending. Writes to one session must not overlap across processes: one writer per
 * session at a time. Use the SQLite or Postgres store for concurrent writers.
 *
 * Single process: this store has no session leases (`LeasableSessionStore`) and no approval
 * index (`ApprovalIndexStore`), so run one runtime per root. The runtime then finds approvals by
 * reading the sessions (cost grows with their number), and only its own per-session queue keeps
 * two turns of a session apart. For several runtime processes use `SqliteSessionStore` (one
 * machine) or a store with session leases on a shared database.
 *
 * Session ids are directory names: 1 to 128 of `A-Z a-z 0-9 . _ -`, not starting with a dot;
 * anything else is an `InvalidArgumentError`. Deleting an unknown session is a no-op.
 *
 * @example
 * const store = new JsonlSessionStore({ root: ".agentry/sessions" });
 */
export class JsonlSessionStore implements PrunableSessionStore {
  /** The directory holding the sessions. */
  readonly root: string;
  readonly #fsync: boolean;
  readonly #clock = new SessionClock();
  readonly #queue = new KeyedSerializer();
  readonly #indexes = new Map<string, HistoryIndex>();

  constructor(options: JsonlSessionStoreOptions) {
    if (typeof options?.root !== "string" || options.root === "")
      throw new InvalidArgumentError("JsonlSessionStore: root must be a non-empty path");
    this.root = options.root;
    this.#fsync = options.fsync ?? true;
  }

  async createSession(init: CreateSessionInit): Promise<SessionSummary> {
    const tick = this.#clock.tick();
    const summary = newSessionSummary(init, () => crypto.randomUUID(), tick.iso);
    const dir = this.#dir(summary.sessionId);
    return this.#write("createSession", summary.sessionId, async () => {
      await mkdir(dir, { recursive: true });
      const descriptor: Descriptor = {
        version: 1,
        sessionId: summary.sessionId,
        agentId: summary.agentId,
        createdAt: summary.createdAt,
      };
      if (summary.scope !== undefined) descriptor.scope = summary.scope;
      if (!(await createFileExclusive(join(dir, DESCRIPTOR), json(descriptor), this.#fsync))) {
        throw new InvalidArgumentError(`createSession: session "${summary.sessionId}" already exists`);
      }
      await writeFile(join(dir, HISTORY), "");
      await writeFileAtomic(join(dir, STATE), json(stateOf(summary, 0, tick.order)), this.#fsync);
      if (this.#fsync) await syncDirectory(this.root);
      return summary;
    });
  }

  async getSession(sessionId: string): Promise<SessionSummary | undefined> {
    const dir = this.#dir(sessionId);
    return this.#read("getSession", async () => (await this.#readSession(dir))?.summary);
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    const checked = checkListQuery(query);
    return this.#read("listSessions", async () => {
      const found = (await this.#readAll()).filter(({ summary }) => matchesListQuery(summary, checked));
      return found
        .sort((a, b) => b.order - a.order)
        .slice(0, checked.limit)
        .map(({ summary }) => summary);
    });
  }

  async updateSession(sessionId: string, patch: SessionPatch): Promise<SessionSummary> {
    const dir = this.#dir(sessionId);
    return this.#write("updateSession", sessionId, async () => {
      const current = await this.#readSession(dir);
      if (current === undefined) throw sessionNotFound(sessionId);
      const summary = patchSessionSummary(current.summary, patch);
      this.#clock.observe(current.order);
      const tick = this.#clock.tick();
      summary.updatedAt = tick.iso;
      await writeFileAtomic(join(dir, STATE), json(stateOf(summary, current.lastSeq, tick.order)), this.#fsync);
      return summary;
    });
  }

  async deleteSession(sessionId: string): Promise<void> {
    const dir = this.#dir(sessionId);
    return this.#write("deleteSession", sessionId, async () => {
      this.#indexes.delete(sessionId);
      // Rename first: the session disappears at once, even if the removal below is cut short.
      const trash = join(this.root, `.deleted-${sessionId}-${crypto.randomUUID()}`);
      try {
        await rename(dir, trash);
      } catch (error) {
        if (errorCode(error) === "ENOENT") return;
        throw error;
      }
      await rm(trash, { recursive: true, force: true });
    });
  }

  async append(sessionId: string, records: NewRecord[]): Promise<HistoryRecord[]> {
    checkNewRecords(records);
    const dir = this.#dir(sessionId);
    return this.#write("append", sessionId, () => this.#append(sessionId, dir, records));
  }

  async load(sessionId: string, options: LoadOptions = {}): Promise<HistoryRecord[]> {
    checkLoadOptions(options);
    const dir = this.#dir(sessionId);
    return this.#read("load", () => this.#load(sessionId, dir, options));
  }

  async clear(sessionId: string): Promise<void> {
    await this.append(sessionId, [{ id: crypto.randomUUID(), kind: "reset", frame: null }]);
  }

  /** Deletes every session whose `updatedAt` is before `olderThan`; returns how many. */
  async prune(options: { olderThan: string }): Promise<number> {
    const olderThan = parseOlderThan(options);
    const old = (await this.#read("prune", () => this.#readAll())).filter(
      ({ summary }) => Date.parse(summary.updatedAt) < olderThan,
    );
    for (const { summary } of old) await this.deleteSession(summary.sessionId);
    return old.length;
  }

  async #append(sessionId: string, dir: string, records: NewRecord[]): Promise<HistoryRecord[]> {
    const state = await this.#readState(sessionId, dir);
    const file = join(dir, HISTORY);
    const handle = await open(file, "a");
    let index: HistoryIndex;
    let text: string;
    let fresh: HistoryRecord[];
    const stored: (HistoryRecord | number)[] = [];
    try {
      const { size, ino } = await handle.stat();
      index = await this.#index(sessionId, file, size, ino);
      // A crash left a torn line or an unfinished batch: cut it off before appending.
      if (size > index.bytes) await handle.truncate(index.bytes);
      this.#clock.observe(state.order ?? orderFromIso(state.updatedAt));
      const tick = this.#clock.tick();
      const batch = new Map<string, HistoryRecord>();
      for (const record of records) {
        const known = index.ids.get(record.id);
        const kept =
          known ?? batch.get(record.id) ?? stampRecord(record, index.starts.length + batch.size + 1, tick.iso);
        if (known === undefined) batch.set(record.id, kept as HistoryRecord);
        stored.push(kept);
      }
      ({ text, stored: fresh } = serializeBatch([...batch.values()]));
      if (fresh.length > 0) {
        await handle.write(text);
        if (this.#fsync) await handle.datasync();
        let offset = index.bytes;
        for (const [n, line] of text.split("\n").slice(0, -1).entries()) {
          index.starts.push(offset);
          noteRecord(index, fresh[n]!);
          offset += Buffer.byteLength(line) + 1;
        }
        index.bytes = offset;
        const next: State = { ...state, updatedAt: tick.iso, lastSeq: index.starts.length, order: tick.order };
        await writeFileAtomic(join(dir, STATE), json(next), this.#fsync);
      }
    } finally {
      await handle.close();
    }
    const byId = new Map(fresh.map((record) => [record.id, record]));
    const history = stored.some((entry) => typeof entry === "number") ? await this.#load(sessionId, dir, {}) : [];
    return stored.map((entry) => (typeof entry === "number" ? history[entry - 1]! : byId.get(entry.id)!));
  }

  /** This instance's index of a history file, re-read when the file changed behind its back. */
  async #index(sessionId: string, file: string, size: number, ino: number): Promise<HistoryIndex> {
    const cached = this.#indexes.get(sessionId);
    if (cached !== undefined && cached.bytes === size && cached.ino === ino) {
      this.#indexes.delete(sessionId);
      this.#indexes.set(sessionId, cached);
      return cached;
    }
    return this.#remember(sessionId, indexHistory(scanHistory(await readFile(file), file), ino));
  }

  #remember(sessionId: string, index: HistoryIndex): HistoryIndex {
    this.#indexes.delete(sessionId);
    this.#indexes.set(sessionId, index);
    if (this.#indexes.size > MAX_INDEXES) this.#indexes.delete(this.#indexes.keys().next().value!);
    return index;
  }

  async #load(sessionId: string, dir: string, options: LoadOptions): Promise<HistoryRecord[]> {
    const file = join(dir, HISTORY);
    let size: number;
    let ino: number;
    try {
      ({ size, ino } = await stat(file));
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
      if ((await readJsonFile(join(dir, DESCRIPTOR))) === undefined) throw sessionNotFound(sessionId);
      return [];
    }
    const cached = this.#indexes.get(sessionId);
    if (cached === undefined || cached.bytes !== size || cached.ino !== ino) {
      const scan = scanHistory(await readFile(file), file);
      this.#remember(sessionId, indexHistory(scan, ino));
      return selectRecords(scan.records, options);
    }
    // Read only the tail the options ask for. Line n holds seq n.
    const after = Math.floor(lowerBound(cached, options));
    if (after >= cached.starts.length) return [];
    const start = cached.starts[after]!;
    const handle = await open(file, "r");
    try {
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      return selectRecords(scanHistory(buffer, file, start, after + 1).records, {
        ...options,
        sinceLastReset: false,
        afterSeq: after,
      });
    } finally {
      await handle.close();
    }
  }

  /** `state.json` of an existing session (defaults when a crash came before it was written). */
  async #readState(sessionId: string, dir: string): Promise<State> {
    const state = await readJsonFile<State>(join(dir, STATE));
    if (state !== undefined) return state;
    const descriptor = await readJsonFile<Descriptor>(join(dir, DESCRIPTOR));
    if (descriptor === undefined) throw sessionNotFound(sessionId);
    return {
      agentId: descriptor.agentId,
      createdAt: descriptor.createdAt,
      ...(descriptor.scope !== undefined && { scope: descriptor.scope }),
      updatedAt: descriptor.createdAt,
      lastSeq: 0,
    };
  }

  /** The session's summary; `state.json` alone when it carries the identity (it is written after the descriptor). */
  async #readSession(dir: string): Promise<{ summary: SessionSummary; lastSeq: number; order: number } | undefined> {
    const state = await readJsonFile<State>(join(dir, STATE));
    const identity =
      state?.agentId !== undefined && state.createdAt !== undefined
        ? state
        : await readJsonFile<Descriptor>(join(dir, DESCRIPTOR));
    if (identity?.agentId === undefined || identity.createdAt === undefined) return undefined;
    const {
      lastSeq = 0,
      order,
      agentId: _agentId,
      createdAt: _createdAt,
      scope: _scope,
      ...meta
    } = state ?? { updatedAt: identity.createdAt, lastSeq: 0 };
    const summary: SessionSummary = {
      sessionId: basename(dir),
      agentId: identity.agentId,
      createdAt: identity.createdAt,
      ...meta,
    };
    if (identity.scope !== undefined) summary.scope = identity.scope;
    return { summary, lastSeq, order: order ?? orderFromIso(summary.updatedAt) };
  }

  async #readAll(): Promise<{ summary: SessionSummary; order: number }[]> {
    let names: string[];
    try {
      names = (await readdir(this.root, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && SESSION_ID.test(entry.name))
        .map((entry) => entry.name);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      throw error;
    }
    const found: { summary: SessionSummary; order: number }[] = [];
    for (let start = 0; start < names.length; start += 64) {
      const chunk = await Promise.all(
        names.slice(start, start + 64).map((name) => this.#readSession(join(this.root, name))),
      );
      for (const session of chunk) if (session !== undefined) found.push(session);
    }
    return found;
  }

  #dir(sessionId: string): string {
    if (typeof sessionId !== "string" || !SESSION_ID.test(sessionId)) {
      throw new InvalidArgumentError(
        `JsonlSessionStore: invalid session id ${JSON.stringify(sessionId)}: use 1-128 of A-Z a-z 0-9 . _ - (not starting with ".")`,
      );
    }
    return join(this.root, sessionId);
  }

  #write<T>(operation: string, sessionId: string, task: () => Promise<T>): Promise<T> {
    return this.#queue.run(sessionId, () => this.#read(operation, task));
  }

  async #read<T>(operation: string, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (AgentryError.isInstance(error)) throw error;
      throw new SessionStoreError(
        `JsonlSessionStore.${operation} failed: ${(error as Error)?.message ?? String(error)}`,
        { cause: error },
      );
    }
  }
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

function stateOf(summary: SessionSummary, lastSeq: number, order: number): State {
  const { sessionId: _id, ...state } = summary;
  return { ...state, lastSeq, order };
}

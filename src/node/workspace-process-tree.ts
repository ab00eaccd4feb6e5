/// <reference types="node" />
import { readFileSync, readlinkSync } from "node:fs";
import { opendir, readFile, readdir, readlink } from "node:fs/promises";
import process from "node:process";

// Finding and ending everything a command started (not public). Linux only (through /proc);
// elsewhere a command's tree is its process group, which `run_command` kills as well.

/** A process as /proc shows it; `start` (clock ticks after boot) tells a reused pid apart. */
interface ProcessInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  start: string;
}

const isLinux = process.platform === "linux";

function parseStat(pid: number, text: string | undefined): ProcessInfo | undefined {
  if (text === undefined) return undefined;
  // "pid (comm) state ppid pgrp session ... starttime(22nd)"; comm may hold spaces and parens.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [ppid, pgrp, session, start] = [fields[1], fields[2], fields[3], fields[19]];
  if (start === undefined) return undefined;
  return { pid, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session), start };
}

async function readProcess(pid: number): Promise<ProcessInfo | undefined> {
  return parseStat(pid, await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined));
}

function readProcessNow(pid: number): ProcessInfo | undefined {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

async function readProcesses(): Promise<ProcessInfo[]> {
  const names = await readdir("/proc").catch(() => [] as string[]);
  const all = await Promise.all(names.filter((name) => /^\d+$/.test(name)).map((name) => readProcess(Number(name))));
  return all.filter((info): info is ProcessInfo => info !== undefined);
}

/** The sockets or pipes a process has as stdout and stderr (e.g. `socket:[ino]`), read at once. */
function outputEndsOf(pid: number): string[] {
  const ends: string[] = [];
  for (const fd of [1, 2]) {
    try {
      ends.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // Gone already, or not readable.
    }
  }
  return ends;
}

/** Descriptors looked at per process, so a process holding a million of them costs little. */
const MAX_FDS_SCANNED = 4_096;

async function holdsAny(pid: number, ends: ReadonlySet<string>): Promise<boolean> {
  const fds: string[] = [];
  try {
    for await (const entry of await opendir(`/proc/${pid}/fd`)) {
      fds.push(entry.name);
      if (fds.length >= MAX_FDS_SCANNED) break;
    }
  } catch {
    // Gone, or another user's.
  }
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")));
  return targets.some((target) => ends.has(target));
}

/**
 * The processes of a command started as session and group leader `rootPid`, on Linux: the root,
 * every process in its session or process group, every process holding one of the command's
 * output ends (`ends`, from {@link outputEndsOf}: this finds a daemon that left the session and
 * whose parent exited; only processes started after the command are searched), and every
 * descendant of those by parent chain. A process that left the session, closed the output and
 * lost its parent before this runs is not found; nor is one that got the output passed over a
 * socket while older than the command, or holds it only above its first 4,096 descriptors.
 */
async function findTree(rootPid: number, rootStart: number, ends: ReadonlySet<string>): Promise<ProcessInfo[]> {
  const all = await readProcesses();
  const self = process.pid;
  const found = new Map<number, ProcessInfo>();
  for (const info of all) {
    if (info.pid === self) continue;
    if (info.pid === rootPid || info.session === rootPid || info.pgrp === rootPid) found.set(info.pid, info);
  }
  if (ends.size > 0) {
    // Other users' descriptors are not readable: those reads fail at once.
    // Holders inherited the output, so they started after the command: older ones are skipped.
    const candidates = all.filter(
      (info) => info.pid !== self && !found.has(info.pid) && Number(info.start) >= rootStart,
    );
    const holders = await Promise.all(
      candidates.map(async (info) => ((await holdsAny(info.pid, ends)) ? info : undefined)),
    );
    for (const info of holders) if (info !== undefined) found.set(info.pid, info);
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const info of all) {
      if (!found.has(info.pid) && found.has(info.ppid) && info.pid !== self) {
        found.set(info.pid, info);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

const send = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already, or not ours.
  }
};

/** A command's process tree, to signal as a whole. See {@link createProcessTree}. */
export interface ProcessTree {
  /** Sends SIGTERM to the group and to every process found now (remembered for {@link ProcessTree.kill}). */
  terminate(): Promise<void>;
  /** Stops, then SIGKILLs, the group, the processes remembered and those found now. */
  kill(): Promise<void>;
}

/**
 * The process tree of a command started with `detached: true` (group and session leader `pid`).
 * Call it right after `spawn()`: it notes the command's start time and output ends then.
 */
export function createProcessTree(pid: number | undefined): ProcessTree {
  const root = isLinux && pid !== undefined ? readProcessNow(pid) : undefined;
  const rootStart = root === undefined ? 0 : Number(root.start);
  const endSet = new Set(root === undefined || pid === undefined ? [] : outputEndsOf(pid));
  const remembered = new Map<number, string>();
  const group = (signal: NodeJS.Signals) => {
    if (pid !== undefined && process.platform !== "win32") send(-pid, signal);
  };
  // Signals go out only after the search: a parent killed first would orphan its children, which
  // then no longer lead back to the command. The group is frozen meanwhile so it cannot exit.
  return {
    async terminate() {
      if (!isLinux || pid === undefined) return group("SIGTERM");
      group("SIGSTOP");
      let found: ProcessInfo[] = [];
      try {
        found = await findTree(pid, rootStart, endSet);
        for (const info of found) {
          remembered.set(info.pid, info.start);
          send(info.pid, "SIGTERM");
        }
      } finally {
        group("SIGTERM");
        for (const info of found) send(info.pid, "SIGCONT");
        group("SIGCONT");
      }
    },
    async kill() {
      if (!isLinux || pid === undefined) return group("SIGKILL");
      // Freeze first, so nothing forks away between finding and killing; a few rounds catch
      // children forked just before their parent stopped.
      group("SIGSTOP");
      const stopped = new Set<number>();
      for (const [known, start] of remembered) {
        if ((await readProcess(known))?.start === start) stopped.add(known);
      }
      for (const known of stopped) send(known, "SIGSTOP");
      for (let round = 0; round < 4; round++) {
        const fresh = (await findTree(pid, rootStart, endSet)).filter((info) => !stopped.has(info.pid));
        if (fresh.length === 0) break;
        for (const info of fresh) {
          stopped.add(info.pid);
          send(info.pid, "SIGSTOP");
        }
      }
      for (const known of stopped) send(known, "SIGKILL");
      group("SIGKILL");
    },
  };
}

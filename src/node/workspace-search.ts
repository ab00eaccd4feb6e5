/// <reference types="node" />
import { lstat } from "node:fs/promises";
import { relative, sep } from "node:path";
import { z } from "zod/v4";
import { abortError } from "../internal/abort.js";
import { compileLinearRegex, RegexSubsetError, type LinearRegex } from "../internal/linear-regex.js";
import { defineTool } from "../tools/define-tool.js";
import type { Tool } from "../contracts/tool.js";
import { compilePathGlobs, type PathGlob } from "./path-glob.js";
import { listConfinedDirectory, readConfinedFile, useProcFd, type WorkspaceFsOptions } from "./workspace-fs.js";
import { describeFsError, resolveConfinedPath, type ConfinedPath } from "./workspace-path.js";

/** One matching line of `search_files`. */
export interface SearchFilesMatch {
  /** Path of the file, relative to the workspace root, `/`-separated. */
  file: string;
  /** 1-based line number. */
  line: number;
  /** The line, without its line break, cut to the configured length. */
  text: string;
  /** Present (true) when `text` was cut. */
  textTruncated?: true;
}

/** What `search_files` returns. */
export interface SearchFilesResult {
  matches: SearchFilesMatch[];
  /** Text files searched (whole or, for the last one when the byte limit was reached, in part). */
  filesSearched: number;
  /** Bytes read from files, binary ones included. */
  bytesSearched: number;
  /** Files skipped as binary (a NUL byte in what was read). */
  binaryFilesSkipped: number;
  /** Files that could not be read (permission, vanished, or leading outside the workspace): skipped. */
  unreadableFiles: number;
  /** True when the search stopped early: see `stoppedBy`. */
  truncated: boolean;
  /** Which limit stopped the search: matches, bytes read, directory entries visited, or regex steps. */
  stoppedBy?: "matches" | "bytes" | "entries" | "steps";
}

/** Limits of `search_files`, resolved from `WorkspaceToolsOptions`. */
export interface SearchSettings {
  maxMatches: number;
  maxBytes: number;
  maxEntries: number;
  maxSteps: number;
  maxLineChars: number;
}

interface SearchState {
  /** How files and directories are verified, resolved once per search. */
  readonly fs: WorkspaceFsOptions;
  readonly regex: LinearRegex;
  readonly budget: { steps: number };
  readonly limit: number;
  readonly result: SearchFilesResult;
}

type Stop = SearchFilesResult["stoppedBy"];

const toPosix = (path: string) => (sep === "/" ? path : path.split(sep).join("/"));

function compilePattern(pattern: string): LinearRegex {
  try {
    return compileLinearRegex(pattern);
  } catch (error) {
    const why = error instanceof RegexSubsetError ? error.message : String(error);
    throw new Error(
      `Invalid pattern ${JSON.stringify(pattern)}: ${why}. Backreferences, lookaround and \\p{...} are not supported.`,
      {
        cause: error,
      },
    );
  }
}

/** Searches one file's lines; the reason to stop, or undefined to go on. */
async function searchFile(
  target: ConfinedPath,
  file: string,
  state: SearchState,
  settings: SearchSettings,
): Promise<Stop> {
  const { result } = state;
  const remaining = settings.maxBytes - result.bytesSearched;
  if (remaining <= 0) return "bytes";
  let read: { size: number; bytes: Buffer };
  try {
    read = await readConfinedFile(target, file, { offset: 0, maxBytes: remaining }, state.fs);
  } catch {
    result.unreadableFiles++;
    return undefined;
  }
  result.bytesSearched += read.bytes.length;
  const cut = read.bytes.length < read.size;
  if (read.bytes.includes(0)) {
    result.binaryFilesSkipped++;
    return cut ? "bytes" : undefined;
  }
  result.filesSearched++;
  const lines = read.bytes.toString("utf8").split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.endsWith("\r") ? lines[index]!.slice(0, -1) : lines[index]!;
    const found = state.regex.test(line, state.budget);
    if (found === undefined) return "steps";
    if (!found) continue;
    const match: SearchFilesMatch = { file, line: index + 1, text: line.slice(0, settings.maxLineChars) };
    if (line.length > settings.maxLineChars) match.textTruncated = true;
    result.matches.push(match);
    if (result.matches.length >= state.limit) return "matches";
  }
  return cut ? "bytes" : undefined;
}

/** Walks directories depth first (files of a directory before its subdirectories, each by name). */
async function walk(
  start: { real: string; rel: string },
  root: string,
  filters: { include: PathGlob | undefined; exclude: PathGlob },
  state: SearchState,
  settings: SearchSettings,
  signal: AbortSignal,
): Promise<Stop> {
  const stack = [start];
  let entries = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const target = { realRoot: root, real: dir.real, existing: dir.real, missing: [] };
    let listing: Awaited<ReturnType<typeof listConfinedDirectory>>;
    try {
      listing = await listConfinedDirectory(
        target,
        dir.rel || ".",
        Math.max(1, settings.maxEntries - entries),
        state.fs,
      );
    } catch {
      state.result.unreadableFiles++;
      continue;
    }
    const subdirectories: { real: string; rel: string }[] = [];
    for (const entry of listing.entries) {
      if (++entries > settings.maxEntries) return "entries";
      if (signal.aborted) throw abortError(signal);
      const rel = dir.rel === "" ? entry.name : `${dir.rel}/${entry.name}`;
      const real = `${dir.real}${dir.real.endsWith(sep) ? "" : sep}${entry.name}`;
      if (filters.exclude.matches(rel)) continue;
      if (entry.type === "directory") {
        if (entry.name !== ".git") subdirectories.push({ real, rel });
      } else if (entry.type === "file" && (filters.include?.matches(rel) ?? true)) {
        const stop = await searchFile({ realRoot: root, real, existing: real, missing: [] }, rel, state, settings);
        if (stop !== undefined) return stop;
      }
    }
    if (listing.truncated) return "entries";
    stack.push(...subdirectories.reverse());
  }
  return undefined;
}

/** The input of `search_files`. */
const searchInput = (settings: SearchSettings) =>
  z.object({
    pattern: z
      .string()
      .min(1)
      .max(1_000)
      .describe("Regular expression (JavaScript syntax; no backreferences or lookaround), tested on each line"),
    path: z.string().default(".").describe("Directory or file to search, relative to the workspace root"),
    include: z
      .array(z.string().max(256))
      .max(64)
      .default([])
      .describe('Only files matching one of these globs, e.g. ["*.ts", "src/**/*.md"]'),
    exclude: z
      .array(z.string().max(256))
      .max(64)
      .default([])
      .describe('Skip files and directories matching these globs, e.g. ["node_modules", "dist"]'),
    max_matches: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`Stop after this many matching lines; at most ${settings.maxMatches}`),
  });

/** The `search_files` tool (permission class `workspace_read`). See `createWorkspaceTools`. */
export function createSearchFilesTool(settings: SearchSettings): Tool {
  return defineTool({
    name: "search_files",
    description:
      "Search the workspace's text files for lines matching a regular expression (like ripgrep). Returns file, line number and " +
      "line text. `.git` directories and binary files are skipped; use include/exclude globs to narrow the search.",
    input: searchInput(settings),
    permissionClass: "workspace_read",
    async execute(input, ctx) {
      const regex = compilePattern(input.pattern);
      const filters = {
        include: input.include?.length ? compilePathGlobs(input.include, "include") : undefined,
        exclude: compilePathGlobs(input.exclude ?? [], "exclude"),
      };
      const shown = input.path ?? ".";
      const start = await resolveConfinedPath(ctx.policy, shown);
      const info = await lstat(start.real).catch((error: unknown) => {
        throw new Error(`Cannot search ${JSON.stringify(shown)}: ${describeFsError(error)}.`, { cause: error });
      });
      const result: SearchFilesResult = {
        matches: [],
        filesSearched: 0,
        bytesSearched: 0,
        binaryFilesSkipped: 0,
        unreadableFiles: 0,
        truncated: false,
      };
      const state: SearchState = {
        fs: { procFd: await useProcFd() },
        regex,
        budget: { steps: settings.maxSteps },
        limit: Math.min(input.max_matches ?? settings.maxMatches, settings.maxMatches),
        result,
      };
      const rel = toPosix(relative(start.realRoot, start.real));
      let stop: Stop;
      if (info.isDirectory())
        stop = await walk({ real: start.real, rel }, start.realRoot, filters, state, settings, ctx.signal);
      else if (info.isFile()) stop = await searchFile(start, rel, state, settings);
      else throw new Error(`Cannot search ${JSON.stringify(shown)}: not a regular file or directory.`);
      if (stop !== undefined) Object.assign(result, { truncated: true, stoppedBy: stop });
      return result;
    },
  });
}

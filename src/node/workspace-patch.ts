/// <reference types="node" />
import { applyPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from "diff";
import { z } from "zod/v4";
import type { PermissionClass } from "../contracts/tool-policy.js";
import { defineTool } from "../tools/define-tool.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import { deleteConfinedFile, readConfinedFile, writeConfinedFile } from "./workspace-fs.js";
import { refuseGitMetadata, resolveConfinedPath, type ConfinedPath } from "./workspace-path.js";

/** Settings of `apply_patch`, resolved from `WorkspaceToolsOptions`. */
export interface PatchSettings {
  /** Longest patch text, in characters. */
  maxPatchChars: number;
  /** Largest file a patch may change, in bytes. */
  maxFileBytes: number;
}

/** What `apply_patch` did to one file. */
export interface AppliedPatchFile {
  path: string;
  action: "modified" | "created" | "deleted" | "renamed";
  /** For a rename: the path the file had. */
  from?: string;
  hunks: number;
}

/** What `apply_patch` returns. */
export interface ApplyPatchResult {
  files: AppliedPatchFile[];
}

/** One file of a patch, checked and resolved, with its current and new content. */
interface PlannedFile {
  action: AppliedPatchFile["action"];
  /** Where the content goes (null: deleted). */
  target: { shown: string; path: ConfinedPath } | null;
  /** Where the content comes from (null: created). */
  source: { shown: string; path: ConfinedPath; content: string } | null;
  content: string;
  hunks: number;
}

/**
 * Most line comparisons one file's hunks may cost (lines of the file x lines of the hunks): jsdiff
 * looks for a hunk that does not fit where its header says across the whole file.
 */
const MAX_COMPARISONS = 50_000_000;

/** The path a patch header names: `a/` or `b/` prefix dropped (git style), `/dev/null` as null. */
function headerPath(name: string | undefined, prefix: "a/" | "b/", gitStyle: boolean): string | null {
  if (name === undefined || name === "/dev/null") return null;
  return gitStyle && name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

const hunkHeader = (h: StructuredPatchHunk) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
const lineCount = (text: string) => text.split("\n").length;

/** Which class each change needs beyond the tool's own (reading and writing existing files). */
function neededClass(action: AppliedPatchFile["action"]): PermissionClass[] {
  if (action === "created") return ["workspace_create"];
  if (action === "deleted") return ["workspace_delete"];
  if (action === "renamed") return ["workspace_create", "workspace_delete"];
  return [];
}

/** The old and new path of one file of a patch, and what the patch does to it. */
function patchTargets(file: StructuredPatch): {
  from: string | null;
  to: string | null;
  action: AppliedPatchFile["action"];
} {
  // git's prefixes: a/ on the old side, b/ on the new, /dev/null for a side that does not exist.
  const prefixed = (name: string | undefined, prefix: string) =>
    name === "/dev/null" || name?.startsWith(prefix) === true;
  const gitStyle = file.isGit === true || (prefixed(file.oldFileName, "a/") && prefixed(file.newFileName, "b/"));
  const from = file.isCreate === true ? null : headerPath(file.oldFileName, "a/", gitStyle);
  const to = file.isDelete === true ? null : headerPath(file.newFileName, "b/", gitStyle);
  return {
    from,
    to,
    action: from === null ? "created" : to === null ? "deleted" : from !== to ? "renamed" : "modified",
  };
}

/** Whether the policy asks for approval of a class this patch needs for creating or deleting files. */
function asksApproval(patch: string, ctx: ToolContext): boolean {
  const ask = ctx.policy.approval?.classes ?? [];
  if (!ask.includes("workspace_create") && !ask.includes("workspace_delete")) return false;
  let files: StructuredPatch[];
  try {
    files = parsePatch(patch);
  } catch {
    return false; // refused when it runs
  }
  return files.some((file) => neededClass(patchTargets(file).action).some((c) => ask.includes(c)));
}

function parse(patch: string): StructuredPatch[] {
  let files: StructuredPatch[];
  try {
    files = parsePatch(patch);
  } catch (error) {
    throw new Error(`The patch could not be parsed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  files = files.filter(
    (f) => f.hunks.length > 0 || f.isRename === true || f.isDelete === true || f.oldFileName !== undefined,
  );
  if (files.length === 0)
    throw new Error("The patch holds no file changes: give a unified diff with ---/+++ headers and @@ hunks.");
  return files;
}

/** Names the first hunk that does not apply, applying them one after the other. */
function explainFailure(source: string, file: StructuredPatch, shown: string): Error {
  let current = source;
  let shift = 0;
  for (const [index, hunk] of file.hunks.entries()) {
    const moved = { ...hunk, oldStart: hunk.oldStart + shift };
    const next = applyPatch(current, { ...file, hunks: [moved] });
    if (next === false) {
      return new Error(
        `The patch does not apply to ${JSON.stringify(shown)}: hunk ${index + 1} of ${file.hunks.length} (${hunkHeader(hunk)}) ` +
          `does not match the file's lines (near line ${moved.oldStart}). Nothing was changed; read the file and make a new patch.`,
      );
    }
    current = next;
    shift += hunk.newLines - hunk.oldLines;
  }
  return new Error(
    `The patch does not apply to ${JSON.stringify(shown)}. Nothing was changed; read the file and make a new patch.`,
  );
}

async function readForPatch(
  ctx: ToolContext,
  shown: string,
  settings: PatchSettings,
): Promise<{ shown: string; path: ConfinedPath; content: string }> {
  const path = await resolveConfinedPath(ctx.policy, shown);
  refuseGitMetadata(path, shown, "patch");
  if (path.missing.length > 0) throw new Error(`The patch changes ${JSON.stringify(shown)}, which does not exist.`);
  const { size, bytes } = await readConfinedFile(path, shown, { offset: 0, maxBytes: settings.maxFileBytes });
  if (size > settings.maxFileBytes)
    throw new Error(`Cannot patch ${JSON.stringify(shown)}: larger than ${settings.maxFileBytes} bytes.`);
  if (bytes.includes(0)) throw new Error(`Cannot patch ${JSON.stringify(shown)}: it is a binary file.`);
  return { shown, path, content: bytes.toString("utf8") };
}

/** Checks one file of the patch and computes its new content; throws (naming the file) when it does not apply. */
async function planFile(file: StructuredPatch, ctx: ToolContext, settings: PatchSettings): Promise<PlannedFile> {
  const { from, to, action } = patchTargets(file);
  const shown = to ?? from ?? "?";
  if (file.isBinary === true)
    throw new Error(`Cannot patch ${JSON.stringify(shown)}: binary patches are not supported.`);
  if (from === null && to === null) throw new Error("A file of the patch names neither an old nor a new path.");
  const missing = neededClass(action).filter((c) => !ctx.policy.classes.includes(c));
  if (missing.length > 0) {
    const verb = action === "created" ? "Creating" : action === "deleted" ? "Deleting" : "Renaming";
    throw new Error(
      `${verb} ${JSON.stringify(shown)} needs the permission class ${missing.map((c) => JSON.stringify(c)).join(" and ")}, which this session does not have.`,
    );
  }
  const source = from === null ? null : await readForPatch(ctx, from, settings);
  let target: PlannedFile["target"] = null;
  if (to !== null) {
    const path = to === from && source ? source.path : await resolveConfinedPath(ctx.policy, to);
    refuseGitMetadata(path, to, "patch");
    if (to !== from && path.missing.length === 0)
      throw new Error(`Cannot create ${JSON.stringify(to)}: it already exists.`);
    target = { shown: to, path };
  }
  const before = source?.content ?? "";
  const hunkLines = file.hunks.reduce((n, h) => n + h.lines.length, 0);
  if (lineCount(before) * hunkLines > MAX_COMPARISONS)
    throw new Error(`The patch for ${JSON.stringify(shown)} is too large for a file of this size: split it.`);
  const content = file.hunks.length === 0 ? before : applyPatch(before, file);
  if (content === false) throw explainFailure(before, file, shown);
  if (action === "deleted" && content !== "")
    throw new Error(
      `The patch deletes ${JSON.stringify(shown)} but does not remove all of its lines: it does not apply.`,
    );
  return { action, target, source, content, hunks: file.hunks.length };
}

/** Writes every planned change; on a failure, puts back what was already changed, then throws. */
async function writeAll(planned: PlannedFile[]): Promise<void> {
  const undo: (() => Promise<unknown>)[] = [];
  try {
    for (const file of planned) {
      const { target, source } = file;
      if (target !== null) {
        await writeConfinedFile(target.path, target.shown, file.content);
        const created = { ...target.path, missing: [] };
        undo.push(() =>
          source !== null && file.action === "modified"
            ? writeConfinedFile(target.path, target.shown, source.content)
            : deleteConfinedFile(created, target.shown),
        );
      }
      if (source !== null && file.action !== "modified") {
        await deleteConfinedFile(source.path, source.shown);
        undo.push(() => writeConfinedFile(source.path, source.shown, source.content));
      }
    }
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => {});
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`Applying the patch failed: ${why} The files it had already changed were restored.`, {
      cause: error,
    });
  }
}

/**
 * The `apply_patch` tool (permission classes `workspace_read` and `workspace_write`; a patch that
 * creates, deletes or renames files also needs `workspace_create` / `workspace_delete`, and asks for
 * approval when the policy's `approval.classes` lists one of those). See `createWorkspaceTools`.
 */
export function createApplyPatchTool(settings: PatchSettings): Tool {
  return defineTool({
    name: "apply_patch",
    description:
      "Apply a unified diff (as `git diff` or `diff -u` write it) to files of the workspace. All files change or none: a hunk that " +
      "does not match is reported and nothing is written. Paths are relative to the workspace root (a/ and b/ prefixes are fine); " +
      "/dev/null as the old or new path creates or deletes a file.",
    input: z.object({ patch: z.string().min(1).max(settings.maxPatchChars).describe("The unified diff") }),
    permissionClass: ["workspace_read", "workspace_write"],
    requiresApproval: ({ patch }, ctx) => asksApproval(patch, ctx),
    parallelSafe: false,
    exclusiveLock: "workspace_fs",
    async execute({ patch }, ctx) {
      const planned: PlannedFile[] = [];
      const seen = new Set<string>();
      for (const file of parse(patch)) {
        const plan = await planFile(file, ctx, settings);
        for (const path of new Set([plan.source?.path.real, plan.target?.path.real])) {
          if (path === undefined) continue;
          if (seen.has(path))
            throw new Error(
              `The patch changes ${JSON.stringify(plan.target?.shown ?? plan.source?.shown)} more than once: merge those parts.`,
            );
          seen.add(path);
        }
        planned.push(plan);
      }
      await writeAll(planned);
      return {
        files: planned.map((p) => ({
          path: p.target?.shown ?? p.source!.shown,
          action: p.action,
          ...(p.action === "renamed" && { from: p.source!.shown }),
          hunks: p.hunks,
        })),
      } satisfies ApplyPatchResult;
    },
  });
}

/// <reference types="node" />
import { realpathSync } from "node:fs";
import { devNull } from "node:os";
import { relative, resolve, sep } from "node:path";
import { isPathInside } from "../policy/is-path-inside.js";

/**
 * Arguments every git call of the workspace tools starts with: no pager, no lock taken to refresh
 * the index (a read never writes `.git`), pathspecs taken literally (no `:(glob)` magic from the
 * model).
 */
export const SAFE_GIT_ARGS: readonly string[] = ["--no-pager", "--no-optional-locks", "--literal-pathspecs"];

/**
 * Config every git call runs with (command-line config outranks the repository's own). Each of
 * these keys can make a read start a program or reach another directory:
 *
 * - `core.fsmonitor`: a program run on every index refresh; `core.hooksPath`: hooks (none run on
 *   a read, `post-index-change` could);
 * - `core.pager` (with `--no-pager`), `credential.helper` (an empty value clears the list),
 *   `protocol.allow=never`: no transport at all, so a partial clone's lazy fetch cannot start
 *   `ssh` (`core.sshCommand`), `core.gitProxy`, `remote.*.uploadpack` or a credential helper;
 * - `safe.bareRepository=explicit`: a bare repository the model laid out in the workspace (its
 *   `HEAD`, `objects/`, `refs/`, `config` are plain files) is never used;
 * - `core.attributesFile`: the user's attributes file is not read.
 *
 * `diff.external` and `diff.<driver>.command` / `textconv` are turned off by `git diff`'s
 * `--no-ext-diff --no-textconv`; filter drivers by {@link filterOverrides}. Keys used only by
 * commands the tools never run (`core.editor`, `gpg.program`, `merge.<driver>.driver`,
 * `sequence.editor`, `receive.*`) are not listed.
 */
const SAFE_CONFIG: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", devNull],
  ["core.pager", "cat"],
  ["core.quotePath", "false"],
  ["core.attributesFile", devNull],
  ["credential.helper", ""],
  ["protocol.allow", "never"],
  ["safe.bareRepository", "explicit"],
  ["submodule.recurse", "false"],
];

/**
 * The environment of a git call: the host's `env` without any `GIT_*` variable (they can name
 * another repository, work tree, index, object store, config or program: `GIT_DIR`,
 * `GIT_EXTERNAL_DIFF`, `GIT_CONFIG_PARAMETERS`, `GIT_SSH_COMMAND`, `GIT_ASKPASS`, `GIT_EXEC_PATH`,
 * ...), with the system and the user's config and attributes ignored (a user's `filter.lfs.*` or
 * `core.pager` starts no program either), discovery stopped above `realRoot`, no prompt, and
 * {@link SAFE_CONFIG} plus `overrides` as command-line config (`GIT_CONFIG_COUNT`: keys and values
 * are passed apart, so a driver name holding `=` or a newline stays one key).
 */
export function safeGitEnv(
  env: Record<string, string | undefined>,
  ceiling: string,
  overrides: readonly (readonly [string, string])[] = [],
): Record<string, string | undefined> {
  const kept = Object.fromEntries(Object.entries(env).filter(([key]) => !key.toUpperCase().startsWith("GIT_")));
  const config = [...SAFE_CONFIG, ...overrides];
  const safe: Record<string, string | undefined> = {
    ...kept,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_CEILING_DIRECTORIES: ceiling,
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_PROTOCOL_FROM_USER: "0",
    LC_ALL: "C",
    GIT_CONFIG_COUNT: String(config.length),
  };
  config.forEach(([key, value], i) => {
    safe[`GIT_CONFIG_KEY_${i}`] = key;
    safe[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return safe;
}

/** What {@link readGitConfig} found in `git config --list --show-origin -z`. */
export interface GitConfigFindings {
  /** Names of the filter drivers the config defines (`filter.<name>.clean`, `.smudge`, `.process`). */
  filterDrivers: string[];
  /** Config files read from inside the work tree (outside `.git`), as paths relative to the root. */
  workTreeFiles: string[];
}

/**
 * Reads the output of `git config --list --show-origin -z` run in `realRoot` (entries are
 * `origin NUL key [NEWLINE value] NUL`; file origins relative to the root).
 */
export function readGitConfig(output: string, realRoot: string): GitConfigFindings {
  const fields = output.split("\0");
  const drivers = new Set<string>();
  const files = new Set<string>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i]!;
    const key = fields[i + 1]!.split("\n", 1)[0]!;
    const driver = /^filter\.(.+)\.(clean|smudge|process|required)$/is.exec(key)?.[1];
    if (driver !== undefined) drivers.add(driver);
    if (origin.startsWith("file:")) {
      const shown = workTreePath(realRoot, origin.slice("file:".length));
      if (shown !== undefined) files.add(shown);
    }
  }
  return { filterDrivers: [...drivers], workTreeFiles: [...files] };
}

/** A config file's path relative to the root when it lies in the work tree (not in `.git`). */
function workTreePath(realRoot: string, file: string): string | undefined {
  let real = resolve(realRoot, file);
  try {
    real = realpathSync(real);
  } catch {
    // A file that cannot be resolved is judged by its lexical path.
  }
  if (!isPathInside(realRoot, real)) return undefined;
  const rel = relative(realRoot, real);
  return rel === "" || rel.split(sep)[0]!.toLowerCase() === ".git" ? undefined : rel;
}

/**
 * Config that turns every named filter driver off for one call: no `clean`, `smudge` or
 * `process` program (an empty command is "no filter" to git), and not `required` (else git fails
 * when the filter does not run). Files are then compared as stored, without the filter.
 */
export function filterOverrides(drivers: readonly string[]): [string, string][] {
  return drivers.flatMap((name): [string, string][] => [
    [`filter.${name}.clean`, ""],
    [`filter.${name}.smudge`, ""],
    [`filter.${name}.process`, ""],
    [`filter.${name}.required`, "false"],
  ]);
}

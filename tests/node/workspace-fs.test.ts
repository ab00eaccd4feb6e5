import { execFileSync } from "node:child_process";
import { link, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolPolicy } from "@agentry/core";
import {
  listConfinedDirectory,
  readConfinedFile,
  writeConfinedFile,
  type WorkspaceFsOptions,
} from "../../src/node/workspace-fs.js";
import { resolveConfinedPath } from "../../src/node/workspace-path.js";

// The confined operations behind the workspace tools, in both verification modes: through
// /proc/self/fd (Linux) and the portable fallback (macOS, Windows), forced here with procFd: false.
const posix = process.platform !== "win32";
const modes: [string, WorkspaceFsOptions][] = [
  ...(process.platform === "linux" ? [["/proc/self/fd", { procFd: true }] as [string, WorkspaceFsOptions]] : []),
  ["fallback", { procFd: false }],
];

let base: string;
let policy: ToolPolicy;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-wsfs-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe.each(modes)("confined file operations (%s)", (mode, options) => {
  let ws: string;
  let outside: string;
  const read = async (path: string, maxBytes = 1_000) =>
    readConfinedFile(await resolveConfinedPath(policy, path), path, { offset: 0, maxBytes }, options);
  const write = async (path: string, content: string) =>
    writeConfinedFile(await resolveConfinedPath(policy, path), path, content, options);
  const list = async (path: string, max = 100) =>
    listConfinedDirectory(await resolveConfinedPath(policy, path), path, max, options);

  beforeAll(async () => {
    ws = join(base, mode.replace(/\W/g, ""), "ws");
    outside = join(base, mode.replace(/\W/g, ""), "outside");
    await mkdir(join(ws, "sub"), { recursive: true });
    await mkdir(outside);
    await writeFile(join(ws, "a.txt"), "hello");
    await writeFile(join(outside, "secret.txt"), "SECRET");
    policy = defaultPolicy("thread", { workspaceRoot: ws });
  });

  it("reads a bounded slice, writes (creating parents) and lists", async () => {
    policy = defaultPolicy("thread", { workspaceRoot: ws });
    expect((await read("a.txt", 3)).bytes.toString()).toBe("hel");
    expect(await write("new/deep/b.txt", "écrit")).toBe(6);
    expect(await readFile(join(ws, "new", "deep", "b.txt"), "utf8")).toBe("écrit");
    expect((await list(".")).entries.map((e) => e.name)).toEqual(["a.txt", "new", "sub"]);
  });

  it("replaces a file whole, keeps its permission bits and leaves no temporary file", async () => {
    policy = defaultPolicy("thread", { workspaceRoot: ws });
    await writeFile(join(ws, "sub", "mode.sh"), "old content, longer than the new one");
    if (posix) execFileSync("chmod", ["750", join(ws, "sub", "mode.sh")]);
    await write("sub/mode.sh", "new");
    expect(await readFile(join(ws, "sub", "mode.sh"), "utf8")).toBe("new");
    if (posix) expect((await stat(join(ws, "sub", "mode.sh"))).mode & 0o777).toBe(0o750);
    expect(await readdir(join(ws, "sub"))).toEqual(["mode.sh"]);
  });

  it("lists the first entries by name with bounded memory, and says it cut", async () => {
    policy = defaultPolicy("thread", { workspaceRoot: ws });
    await mkdir(join(ws, "many"));
    const names = Array.from({ length: 300 }, (_, i) => `f${String(i).padStart(3, "0")}`);
    await Promise.all([...names].reverse().map((name) => writeFile(join(ws, "many", name), "")));
    const listing = await list("many", 5);
    expect(listing).toEqual({ entries: names.slice(0, 5).map((name) => ({ name, type: "file" })), truncated: true });
  });

  it("refuses directories and non-regular files as targets, without opening them", async () => {
    policy = defaultPolicy("thread", { workspaceRoot: ws });
    await expect(read("sub")).rejects.toThrow(/"sub": it is a directory; use list_directory/);
    await expect(write("sub", "x")).rejects.toThrow(/"sub": it is a directory/);
    await expect(write(".", "x")).rejects.toThrow(/it is a directory/);
    await expect(list("a.txt")).rejects.toThrow(/"a.txt": not a directory/);
    if (posix) {
      execFileSync("mkfifo", [join(ws, "fifo")]);
      await expect(read("fifo")).rejects.toThrow(/"fifo": not a regular file/);
      await expect(write("fifo", "x")).rejects.toThrow(/"fifo": not a regular file/);
    }
  });

  it.skipIf(!posix)("never writes through a symlink or a hard link to a file outside", async () => {
    policy = defaultPolicy("thread", { workspaceRoot: ws });
    await symlink(join(outside, "secret.txt"), join(ws, "soft"));
    await expect(write("soft", "pwned")).rejects.toThrow(/outside the workspace/);
    // A hard link is the same file: replacing the name in the workspace leaves the other name alone.
    await link(join(outside, "secret.txt"), join(ws, "hard"));
    await write("hard", "replaced");
    expect(await readFile(join(ws, "hard"), "utf8")).toBe("replaced");
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("SECRET");
  });
});

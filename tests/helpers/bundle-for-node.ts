import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Bundles a TypeScript child-process script (and the current `src/`, through the tests' path
 * aliases) into one plain ES module in a temp folder, so each child starts with plain `node`
 * instead of transpiling the sources again through a loader (seconds per child on a loaded
 * machine). CommonJS dependencies inside the bundle get a `require` for Node's own modules.
 */
export async function bundleForNode(
  source: string,
  options: { external?: string[]; plugins?: Plugin[] } = {},
): Promise<{ path: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "agentry-bundle-"));
  const path = join(dir, `${basename(source, ".ts")}.mjs`);
  await build({
    entryPoints: [source],
    outfile: path,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: join(root, "tsconfig.tests.json"),
    logLevel: "error",
    ...(options.external && { external: options.external }),
    ...(options.plugins && { plugins: options.plugins }),
    banner: {
      js: "import { createRequire as __agentryRequire } from 'node:module'; const require = __agentryRequire(import.meta.url);",
    },
  });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

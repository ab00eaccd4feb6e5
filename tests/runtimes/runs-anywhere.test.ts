/**
 * "Runs anywhere", proven: the program of ./fixtures/runs-anywhere-program.ts (the quickstart's
 * loop on the scripted provider, one `openai()` turn against a fake OpenAI server on 127.0.0.1,
 * and a runtime turn that waits for approval and is decided) is bundled from `src` by esbuild for a platform-neutral target, and run in Bun,
 * Deno (network to 127.0.0.1 only, nothing else allowed), workerd (a module worker, through
 * miniflare), Vercel's edge runtime and headless Chromium (a page on another origin imports it).
 * Each runtime's time is printed; none is asserted.
 */
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build, type BuildOptions } from "esbuild";
import { EdgeRuntime } from "edge-runtime";
import { Miniflare } from "miniflare";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeOpenAIServer, type FakeServer } from "@agentry/core/testing";
import { launchChromium } from "../helpers/chromium.js";
import type { ProgramResult } from "./fixtures/runs-anywhere-program.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const run = promisify(execFile);
/** Each runtime gets this long; a hung runtime fails its test instead of freezing the file. */
const RUNTIME_TIMEOUT_MS = 15_000;
const LISBON_CALL = { name: "get_weather", args: { city: "Lisbon" } };

/** Bundles the program twice: an ES module (Bun, Deno, workerd, the browser) and a script (edge-runtime). */
async function bundleProgram(): Promise<{ esm: string; script: string }> {
  const options: BuildOptions = {
    entryPoints: { program: join(root, "tests/runtimes/fixtures/runs-anywhere-program.ts") },
    bundle: true,
    // Neutral: a static `node:` import anywhere in what the program loads fails the build.
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    tsconfig: join(root, "tsconfig.tests.json"),
    logLevel: "error",
    write: false,
  };
  const [esm, script] = await Promise.all([
    build({ ...options, format: "esm" }),
    build({ ...options, format: "iife", globalName: "agentryProgram" }),
  ]);
  return { esm: esm.outputFiles?.[0]?.text ?? "", script: script.outputFiles?.[0]?.text ?? "" };
}

type PageFiles = Record<string, { type: string; body: string }>;

/** A server for the browser's page and the bundle (on its own origin: the fake server is another). */
async function servePage(files: PageFiles): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const file = files[request.url ?? ""];
    response.writeHead(file ? 200 : 404, { "content-type": file?.type ?? "text/plain" });
    response.end(file?.body ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, server };
}

/** The browser's page: a module script imports the bundle and hands it to the test. */
const PAGE = `<!doctype html>
<title>runs anywhere</title>
<script type="module">
  import * as program from "/program.mjs";
  window.agentryProgram = program;
</script>
`;

/** The printed result of a child runtime: its last line of stdout, as JSON. */
function lastJsonLine(stdout: string): ProgramResult {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as ProgramResult;
}

/** What every runtime must show: both loops complete, the tools ran with their results, usage counted. */
function expectProgramRan(result: ProgramResult): void {
  expect(result.scripted).toMatchObject({ status: "complete", text: "Go to Lisbon: sunny and 24 °C." });
  expect(result.scripted.toolResults).toEqual(
    expect.arrayContaining([
      { name: "get_weather", result: { sky: "sunny", highC: 24 }, isError: false },
      { name: "get_weather", result: { sky: "rain showers", highC: 9 }, isError: false },
      { name: "run_subtask", result: "Lisbon: sunny, high of 24 °C.", isError: false },
      { name: "run_subtask", result: "Oslo: rain showers, high of 9 °C.", isError: false },
    ]),
  );
  expect(result.scripted.usage).toEqual({ llmCalls: 6, toolCalls: 2, inputTokens: 440, outputTokens: 85 });
  expect(result.approval).toEqual({ first: "suspended", pending: 1, resumed: "complete", text: "Booked: Lisbon." });
  expect(result.openai).toEqual({
    status: "complete",
    text: "Lisbon: sunny, 24 °C.",
    toolResults: [{ name: "get_weather", result: { sky: "sunny", highC: 24 }, isError: false }],
    usage: { llmCalls: 2, toolCalls: 1, inputTokens: 130, outputTokens: 22 },
  });
}

describe("the core runs anywhere: the quickstart's loop and an openai() turn", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentry-runs-anywhere-"));
  const timings: Record<string, number> = {};
  let bundle: { esm: string; script: string };
  let fake: FakeServer;
  let page: { url: string; server: Server } | undefined;
  let browser: Browser | undefined;
  // Children see no OpenAI settings of the machine (an empty value counts as unset).
  const childEnv = { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", NO_COLOR: "1" };

  /** Runs one runtime, recording how long it took (printed at the end, never asserted). */
  const timed = async (name: string, body: () => Promise<ProgramResult>): Promise<ProgramResult> => {
    const started = performance.now();
    try {
      return await body();
    } finally {
      timings[name] = Math.round(performance.now() - started);
    }
  };

  beforeAll(async () => {
    const started = performance.now();
    bundle = await bundleProgram();
    timings["esbuild (both bundles)"] = Math.round(performance.now() - started);
    writeFileSync(join(dir, "program.mjs"), bundle.esm);
    writeFileSync(
      join(dir, "main.mjs"),
      [
        'import { run } from "./program.mjs";',
        "const baseURL = globalThis.Deno ? Deno.args[0] : process.argv[2];",
        "console.log(JSON.stringify(await run(baseURL)));",
      ].join("\n"),
    );
    // The model: a get_weather call, then the answer (any number of runs, each in two calls).
    fake = await createFakeOpenAIServer(
      (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "Lisbon: sunny, 24 °C.", usage: { inputTokens: 80, outputTokens: 12 } }
          : { toolCalls: [LISBON_CALL], usage: { inputTokens: 50, outputTokens: 10 } },
      { cors: true },
    );
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => page?.server.close(resolve) ?? resolve(undefined));
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
    console.log(`runs-anywhere timings (ms): ${JSON.stringify(timings)}`);
  });

  it("runs in Bun", async () => {
    const result = await timed("bun", async () => {
      const options = { env: childEnv, timeout: RUNTIME_TIMEOUT_MS };
      const { stdout } = await run(bin("bun"), [join(dir, "main.mjs"), fake.baseURL], options);
      return lastJsonLine(stdout);
    });
    expectProgramRan(result);
  });

  it("runs in Deno with network access to 127.0.0.1 only (no env, no files)", async () => {
    const result = await timed("deno", async () => {
      const port = new URL(fake.url).port;
      const permissions = [`--allow-net=127.0.0.1:${port}`];
      const args = ["run", "--no-prompt", "--no-config", ...permissions, join(dir, "main.mjs"), fake.baseURL];
      const env = { ...childEnv, DENO_DIR: join(dir, "deno"), DENO_NO_UPDATE_CHECK: "1" };
      const { stdout } = await run(bin("deno"), args, { env, timeout: RUNTIME_TIMEOUT_MS });
      return lastJsonLine(stdout);
    });
    expectProgramRan(result);
  });

  it("runs in workerd (a module worker through miniflare)", async () => {
    const result = await timed("workerd", async () => {
      const worker = [
        'import { run } from "./program.mjs";',
        "export default {",
        "  async fetch(request) {",
        '    return Response.json(await run(new URL(request.url).searchParams.get("baseURL")));',
        "  },",
        "};",
      ].join("\n");
      const miniflare = new Miniflare({
        modules: [
          { type: "ESModule", path: "worker.mjs", contents: worker },
          { type: "ESModule", path: "program.mjs", contents: bundle.esm },
        ],
        compatibilityDate: "2025-09-01",
      });
      try {
        const url = `http://worker.test/?baseURL=${encodeURIComponent(fake.baseURL)}`;
        const response = await miniflare.dispatchFetch(url, {
          signal: AbortSignal.timeout(RUNTIME_TIMEOUT_MS),
        });
        expect(response.status).toBe(200);
        return (await response.json()) as ProgramResult;
      } finally {
        await miniflare.dispose();
      }
    });
    expectProgramRan(result);
  });

  it("runs in Vercel's edge runtime", async () => {
    const result = await timed("edge-runtime", async () => {
      const runtime = new EdgeRuntime({ initialCode: bundle.script });
      const call = `agentryProgram.run(${JSON.stringify(fake.baseURL)}).then(JSON.stringify)`;
      const json = await runtime.evaluate<Promise<string>>(call);
      return JSON.parse(json) as ProgramResult;
    });
    expectProgramRan(result);
  });

  it("runs in headless Chromium (a page on another origin than the model server)", async () => {
    const result = await timed("chromium", async () => {
      page = await servePage({
        "/": { type: "text/html", body: PAGE },
        "/program.mjs": { type: "text/javascript", body: bundle.esm },
      });
      browser = await launchChromium();
      const tab = await browser.newPage();
      await tab.goto(page.url);
      await tab.waitForFunction("window.agentryProgram !== undefined");
      // A string, not a function: vitest would rewrite a function's code before the page gets it.
      return tab.evaluate<ProgramResult>(`window.agentryProgram.run(${JSON.stringify(fake.baseURL)})`);
    });
    expectProgramRan(result);
  });
});

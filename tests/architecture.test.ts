import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../src", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const sources = files(root).map((path) => {
  const file = relative(root, path).replaceAll("\\", "/");
  const text = readFileSync(path, "utf8");
  const staticImports = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]!);
  return { file, staticImports };
});

/** Folders whose code may use Node built-ins or optional peers. */
const NODE_ONLY = /^(node|sqlite|postgres|mcp)\/|^entries\/(node|sqlite|postgres|mcp)\.ts$/;
/** Adapters: may import contracts and shared helpers only. */
const ADAPTERS = /^(providers\/(openai|anthropic|http|sse)|node|sqlite|postgres|mcp|ai-sdk|otel)\//;

describe("architecture", () => {
  it("the core imports nothing from node:* statically", () => {
    const offenders = sources
      .filter((s) => !NODE_ONLY.test(s.file))
      .flatMap((s) => s.staticImports.filter((i) => i.startsWith("node:") || ["fs", "path", "http", "child_process"].includes(i)).map((i) => `${s.file} → ${i}`));
    expect(offenders).toEqual([]);
  });

  it("only the sqlite adapter loads better-sqlite3", () => {
    const offenders = sources.filter((s) => !s.file.startsWith("sqlite/") && s.staticImports.includes("better-sqlite3")).map((s) => s.file);
    expect(offenders).toEqual([]);
  });

  it("only the otel adapter loads @opentelemetry/api; @ai-sdk/* is never loaded at run time", () => {
    const otel = sources.filter((s) => !s.file.startsWith("otel/") && s.staticImports.some((i) => i.startsWith("@opentelemetry/"))).map((s) => s.file);
    expect(otel).toEqual([]);
    const aiSdk = sources.filter((s) => s.staticImports.some((i) => i.startsWith("@ai-sdk/") || i === "ai")).map((s) => s.file);
    expect(aiSdk).toEqual([]);
  });

  // runtime/agent-runtime.ts is the runtime's interface (types only): serveAgentsOverMcp takes a runtime as a value of it.
  it("adapters never import the loop or the runtime", () => {
    const offenders = sources
      .filter((s) => ADAPTERS.test(s.file))
      .flatMap((s) => s.staticImports.filter((i) => /\/(loop|runtime)\//.test(i) && !/\/loop\/[a-z-]*types?\.js$|\/loop\/loop-(types|event)\.js$|\/runtime\/agent-runtime\.js$/.test(i)).map((i) => `${s.file} → ${i}`));
    expect(offenders).toEqual([]);
  });

  it("the core never imports an adapter or the testing helpers (entries aside)", () => {
    const offenders = sources
      .filter((s) => !s.file.startsWith("entries/") && !ADAPTERS.test(s.file) && !s.file.startsWith("testing/"))
      .flatMap((s) => s.staticImports.filter((i) => /\/(testing|node|sqlite|postgres|mcp)\/|\/providers\/(openai|anthropic)\//.test(i)).map((i) => `${s.file} → ${i}`));
    expect(offenders).toEqual([]);
  });

  it("entry files are explicit barrels (no export * from implementation files)", () => {
    const entries = files(root).filter((p) => /[/\\](index|entries[/\\][a-z-]+)\.ts$/.test(p));
    for (const path of entries) expect(readFileSync(path, "utf8")).not.toMatch(/export \* from/);
  });
});

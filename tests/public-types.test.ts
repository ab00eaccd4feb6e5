import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("..", import.meta.url));

/** The declaration text the package build emits for one source file (same compiler options). */
function declarationsOf(file: string): string {
  const config = ts.readConfigFile(`${repo}tsconfig.json`, (path) => readFileSync(path, "utf8"));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repo);
  const program = ts.createProgram([`${repo}${file}`], {
    ...options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
  });
  let text = "";
  program.emit(
    program.getSourceFile(`${repo}${file}`),
    (name, data) => {
      if (name.endsWith(".d.ts")) text = data;
    },
    undefined,
    true,
  );
  return text;
}

describe("public types", () => {
  it("strip what is marked @internal (TurnBudget's bookkeeping does not ship)", () => {
    const budget = declarationsOf("src/loop/budget.ts");
    expect(budget).toContain("exceeded: BudgetViolation | null;");
    expect(budget).not.toMatch(/\breported\b|\blocks\b|\bfail\(/);
  });

  it("name every entry's module by its import path", () => {
    const entries = readdirSync(`${repo}src/entries`).map((name) => [
      `src/entries/${name}`,
      `@agentry/core/${name.replace(/\.ts$/, "")}`,
    ]);
    for (const [file, path] of [["src/index.ts", "@agentry/core"], ...entries] as const) {
      expect(readFileSync(`${repo}${file}`, "utf8")).toContain(` * @module \\${path}\n`);
    }
  });
});

// Typechecks every TypeScript block of README.md, CONTRIBUTING.md and docs/*.md against the package, so the
// documentation cannot drift from the API. Also refuses internal jargon and broken relative links.
//
//   npm run build && npx tsx scripts/check-docs.ts            # against dist (what users install)
//   npx tsx scripts/check-docs.ts --against src               # against the sources, no build needed
//   npx tsx scripts/check-docs.ts docs/04-approvals.md         # some files only
//
// Blocks: ```ts and ```typescript are checked, each as its own module. ```ts continues is appended
// to the previous checked block of the same file (one module, so a guide can build an example step
// by step). ```ts no-check is not checked: for fragments only, and sparingly.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** One fenced TypeScript block of a markdown file. */
export interface DocBlock {
  /** The markdown file, as given. */
  file: string;
  /** 1-based line of the block's first code line in the markdown file. */
  line: number;
  code: string;
  mode: "check" | "continues" | "no-check";
}

/** A module to compile: one block, or a block and the blocks that continue it. */
interface DocModule {
  name: string;
  parts: DocBlock[];
}

/** What {@link checkDocs} found. */
export interface CheckDocsResult {
  ok: boolean;
  /** Blocks typechecked. */
  checked: number;
  /** Every problem, as `file:line:column message`. */
  problems: string[];
}

/** Options of {@link checkDocs}. */
export interface CheckDocsOptions {
  /** The repository root (holds package.json, dist/, src/, node_modules/). */
  root: string;
  /** Markdown files to check, relative to `root` or absolute. */
  files: string[];
  /** Compile against the built `.d.ts` files (what users get) or the sources. @default "dist" */
  against?: "dist" | "src";
  /** Scratch folder for the extracted modules; inside `root` so node_modules resolve. @default `<root>/.docs-check` */
  outDir?: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*(.*)$/;
const TS_LANGS = new Set(["ts", "typescript"]);

/** Words that mean nothing outside this project: the docs never use them. */
const JARGON: { pattern: RegExp; why: string }[] = [
  { pattern: /\bseeds?\b/i, why: 'internal design-source jargon ("seed")' },
  { pattern: /\bturn \d+ (additions|work)\b/i, why: "internal planning jargon" },
  { pattern: /\bissue #\d+/i, why: "an issue number" },
];

/** The fenced TypeScript blocks of `markdown`, in order. */
export function extractBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  let open: { fence: string; lang: string; info: string; start: number; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const match = FENCE.exec(text);
    if (open === undefined) {
      if (match)
        open = { fence: match[2]!, lang: match[3]!.toLowerCase(), info: match[4]!.trim(), start: index + 2, body: [] };
      return;
    }
    if (match && match[2]!.startsWith(open.fence) && match[3] === "" && match[4] === "") {
      if (TS_LANGS.has(open.lang))
        blocks.push({ file, line: open.start, code: open.body.join("\n"), mode: modeOf(open.info, file, open.start) });
      open = undefined;
      return;
    }
    open.body.push(text);
  });
  if (open !== undefined) throw new Error(`${file}:${open.start - 1}: code block never closed`);
  return blocks;
}

function modeOf(info: string, file: string, line: number): DocBlock["mode"] {
  if (info === "") return "check";
  if (info === "continues" || info === "no-check") return info;
  throw new Error(`${file}:${line - 1}: unknown code block marker "${info}" (use "continues" or "no-check")`);
}

/** Groups blocks into modules: a `continues` block joins the module of the checked block before it. */
function modulesOf(blocks: DocBlock[], root: string): DocModule[] {
  const modules: DocModule[] = [];
  let current: DocModule | undefined;
  for (const block of blocks) {
    if (block.mode === "no-check") continue;
    if (block.mode === "continues") {
      if (current === undefined || current.parts[0]!.file !== block.file) {
        throw new Error(
          `${block.file}:${block.line - 1}: a "continues" block needs a checked block before it in the same file`,
        );
      }
      current.parts.push(block);
      continue;
    }
    const slug = relative(root, resolve(root, block.file)).replace(/[^\w]+/g, "_");
    current = { name: `${slug}_L${block.line}.ts`, parts: [block] };
    modules.push(current);
  }
  return modules;
}

/** The module's source, and for each of its lines the markdown file and line it came from. */
function render(module: DocModule): { source: string; origin: { file: string; line: number }[] } {
  const out: string[] = [];
  const origin: { file: string; line: number }[] = [];
  for (const part of module.parts) {
    part.code.split("\n").forEach((text, index) => {
      out.push(text);
      origin.push({ file: part.file, line: part.line + index });
    });
  }
  out.push("export {};");
  origin.push({ file: module.parts[0]!.file, line: module.parts[0]!.line });
  return { source: out.join("\n") + "\n", origin };
}

function tsconfigFor(root: string, against: "dist" | "src"): object {
  const entry =
    against === "dist"
      ? { main: "dist/index.d.ts", sub: "dist/*.d.ts" }
      : { main: "src/index.ts", sub: "src/entries/*.ts" };
  return {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023", "DOM"],
      module: "ESNext",
      moduleResolution: "Bundler",
      strict: true,
      noUncheckedIndexedAccess: true,
      isolatedModules: true,
      verbatimModuleSyntax: true,
      esModuleInterop: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
      paths: { "@agentry/core": [join(root, entry.main)], "@agentry/core/*": [join(root, entry.sub)] },
    },
    include: ["*.ts"],
  };
}

/** Problems of the prose: jargon, and relative links to files that do not exist. */
export function proseProblems(markdown: string, file: string, root: string): string[] {
  const problems: string[] = [];
  let fenced = false;
  markdown.split(/\r?\n/).forEach((text, index) => {
    if (/^\s*(`{3,}|~{3,})/.test(text)) fenced = !fenced;
    for (const { pattern, why } of JARGON)
      if (pattern.test(text)) problems.push(`${file}:${index + 1}:1 ${why}: ${text.trim()}`);
    if (fenced) return;
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const path = target!.split("#")[0]!;
      if (path === "" || /^[a-z]+:/i.test(path)) continue;
      if (!existsSync(resolve(dirname(resolve(root, file)), path)))
        problems.push(`${file}:${index + 1}:1 broken link: ${target}`);
    }
  });
  return problems;
}

/** Maps tsc's `path(line,col): error ...` lines back to the markdown. */
function mapDiagnostics(
  output: string,
  outDir: string,
  origins: Map<string, { file: string; line: number }[]>,
): string[] {
  const problems: string[] = [];
  for (const text of output.split(/\r?\n/)) {
    const match = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(text);
    if (!match) {
      if (text.trim() !== "") {
        if (problems.length > 0 && /^\s/.test(text)) problems[problems.length - 1] += `\n${text}`;
        else problems.push(text);
      }
      continue;
    }
    const origin = origins.get(resolve(outDir, match[1]!))?.[Number(match[2]) - 1];
    problems.push(origin ? `${origin.file}:${origin.line}:${match[3]} ${match[4]}` : text);
  }
  return problems;
}

/** Extracts the TypeScript blocks of `files` and typechecks them with tsc. */
export function checkDocs(options: CheckDocsOptions): CheckDocsResult {
  const root = resolve(options.root);
  const against = options.against ?? "dist";
  const outDir = resolve(options.outDir ?? join(root, ".docs-check"));
  if (against === "dist" && !existsSync(join(root, "dist/index.d.ts"))) {
    return {
      ok: false,
      checked: 0,
      problems: ["dist/index.d.ts is missing: run `npm run build` first (or pass --against src)"],
    };
  }
  const problems: string[] = [];
  const modules: DocModule[] = [];
  let checked = 0;
  for (const file of options.files) {
    const markdown = readFileSync(resolve(root, file), "utf8");
    problems.push(...proseProblems(markdown, file, root));
    const blocks = extractBlocks(markdown, file);
    checked += blocks.filter((block) => block.mode !== "no-check").length;
    modules.push(...modulesOf(blocks, root));
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const origins = new Map<string, { file: string; line: number }[]>();
  for (const module of modules) {
    const { source, origin } = render(module);
    writeFileSync(join(outDir, module.name), source);
    origins.set(join(outDir, module.name), origin);
  }
  writeFileSync(join(outDir, "tsconfig.json"), JSON.stringify(tsconfigFor(root, against), null, 2));
  if (modules.length > 0) {
    try {
      execFileSync(
        process.execPath,
        [join(root, "node_modules/typescript/bin/tsc"), "-p", join(outDir, "tsconfig.json"), "--pretty", "false"],
        {
          cwd: outDir,
          encoding: "utf8",
          stdio: "pipe",
        },
      );
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      const found = mapDiagnostics(`${stdout ?? ""}${stderr ?? ""}`, outDir, origins);
      problems.push(...(found.length > 0 ? found : [`tsc failed: ${String(error)}`]));
    }
  }
  return { ok: problems.length === 0, checked, problems };
}

/** README.md, CONTRIBUTING.md and every markdown file under docs/, sorted. */
export function documentationFiles(root: string): string[] {
  const docs = join(root, "docs");
  const guides = existsSync(docs)
    ? readdirSync(docs)
        .filter((name) => name.endsWith(".md"))
        .sort()
        .map((name) => `docs/${name}`)
    : [];
  const contributing = existsSync(join(root, "CONTRIBUTING.md")) ? ["CONTRIBUTING.md"] : [];
  return ["README.md", ...contributing, ...guides];
}

function main(argv: string[]): number {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  let against: "dist" | "src" = "dist";
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--against") {
      const value = argv[++i];
      if (value !== "dist" && value !== "src") throw new Error("--against takes dist or src");
      against = value;
    } else files.push(arg);
  }
  const result = checkDocs({ root, files: files.length > 0 ? files : documentationFiles(root), against });
  for (const problem of result.problems) console.error(problem);
  console.log(
    `docs: ${result.checked} TypeScript blocks checked against ${against}, ${result.problems.length} problems`,
  );
  return result.ok ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../src", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

/**
 * The specifiers of a file's `import("...")` calls whose argument is a string literal (a computed
 * one, as testing/ uses to reach Node built-ins, names nothing a bundler would follow), and whether
 * the file calls `import()` at all. Type positions (`typeof import("./x")`) are not calls.
 */
function dynamicImportsOf(source: ts.SourceFile): { specifiers: string[]; any: boolean } {
  const specifiers: string[] = [];
  let any = false;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      any = true;
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) specifiers.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { specifiers, any };
}

const sources = files(root).map((path) => {
  const file = relative(root, path).replaceAll("\\", "/");
  const text = readFileSync(path, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const staticImports = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]!);
  const dynamic = dynamicImportsOf(source);
  /** Every module the file imports: static (`import type` included) and dynamic `import("...")`. */
  const imports = [...staticImports, ...dynamic.specifiers];
  return { file, text, source, imports, callsImport: dynamic.any };
});

/** Folders whose code may use Node built-ins or optional peers. */
const NODE_ONLY = /^(node|sqlite|postgres|mcp|bin)\/|^entries\/(node|sqlite|postgres|mcp)\.ts$/;
/** Adapters: may import contracts and shared helpers only, never the loop or the runtime. */
const ADAPTERS = /^(providers\/(openai|anthropic|http|sse)|node|sqlite|postgres|mcp|ai-sdk|otel|delivery|ui)\//;

/**
 * The layers of src/, lowest first. A folder imports (statically, `import type` included) only
 * from its own folder and from folders in lower layers; folders of one layer never import each
 * other. So the folder graph has no cycle, and a type moved to a lower layer never drags the
 * layers above it along.
 * - contracts: the types adapters implement and the loop/runtime speak (Provider, SessionStore,
 *   Tool, ToolPolicy, Message, LoopEvent, LoopResult, AgentRuntime, ...); imports nothing from src.
 * - errors, internal: typed errors; private helpers.
 * - schema, messages / tools, modes, context, sessions / policy, agents: building blocks.
 * - providers: the provider adapters and the helpers they share.
 * - loop, then runtime.
 * - adapters and delivery over the contracts (node, sqlite, postgres, mcp, ai-sdk, otel, delivery,
 *   testing); ui renders delivery's events; the inspector reads the store and acts through the runtime.
 * - the entry points; then the command-line tools (bin: Node only, they load adapters).
 */
const LAYERS: string[][] = [
  ["contracts"],
  ["errors"],
  ["internal"],
  ["schema", "messages"],
  ["tools", "modes", "context", "sessions"],
  ["policy", "agents"],
  ["providers"],
  ["loop"],
  ["runtime"],
  ["node", "sqlite", "postgres", "mcp", "ai-sdk", "otel", "delivery", "testing"],
  ["ui", "inspector"],
  ["entries", "index.ts"],
  ["bin"],
];
const layerOf = new Map(LAYERS.flatMap((folders, rank) => folders.map((folder) => [folder, rank] as const)));
const folderOf = (file: string) => file.split("/")[0]!;

/** Folder-level edges from relative imports (static and `import()`): `from → to` with one example import. */
function folderEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const s of sources) {
    for (const spec of s.imports) {
      if (!spec.startsWith(".")) continue;
      const target = relative(root, join(root, s.file, "..", spec)).replaceAll("\\", "/");
      const [from, to] = [folderOf(s.file), folderOf(target)];
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${s.file} → ${spec}`);
    }
  }
  return edges;
}

/** Every cycle found by a depth-first walk (each reported once, as the path that closes it). */
function cycles(edges: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return found;
}

/**
 * File-level edges from relative imports: static ones, `import type` included (a type-only cycle is
 * harmless at run time, but still means two files that cannot be read, moved or tested apart), and
 * `import("...")` (a cycle through a dynamic import is a cycle all the same, only deferred):
 * `file → imported files`.
 */
function fileEdges(): Map<string, string[]> {
  const known = new Set(sources.map((s) => s.file));
  return new Map(
    sources.map((s) => [
      s.file,
      s.imports
        .filter((spec) => spec.startsWith("."))
        .map((spec) => relative(root, join(root, s.file, "..", spec)).replaceAll("\\", "/"))
        // `./x.js` names x.ts or, in the inspector's page, x.tsx.
        .flatMap((target) => [target.replace(/\.js$/, ".ts"), target.replace(/\.js$/, ".tsx")])
        .filter((target) => known.has(target)),
    ]),
  );
}

/** The strongly connected components with more than one file (Tarjan): each is a set of files that import each other. */
function fileCycles(edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      component.push(top);
    } while (top !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * The rooms of src/runtime/, lowest first, under its one top file (`create-agent-runtime.ts`, the
 * runtime's only entry, which builds every service in this order). A file in a room imports
 * (statically, `import type` included, and with `import()`) only from its own room and from lower
 * rooms; rooms of one layer never import each other. A new room fails the test until it is placed.
 * - records: pure shapes and functions of what the runtime stores and passes around (options and
 *   limits, the session-state reader, decision records, turn requests, lineage, background and
 *   task attributes, delegation answers);
 * - session: the store as the runtime uses it (its one wrapper), the session gate (per-session
 *   order + lease), the state cache, repair, a stored turn's outcome, pending requests, admission
 *   order, the turns running here, the runtime's open/closed status;
 * - events: the event emitter, labels, publish and report, the stream adapter;
 * - agents: what an agent's turn is prepared from (toolbelt, prompt, policy, roles, external
 *   agents, the mode tools);
 * - runner: running one turn (loop, persistence, audit, model-call log, the host its tools see);
 * - queue: admission, the turn queue (enqueue, recover, resume, settle), queued messages, and the
 *   lifecycle points features are handed at construction;
 * - delegation: hand-offs and the dispatcher, delegated waits, dispatched turns;
 * - background: background agents' lifecycle and notices;
 * - agent-tools, tasks, roles, conversation: the built-in agent tools; the task API and its lifecycle;
 *   setRole; rewinding and forking a conversation;
 * - decisions: deciding approvals and answering questions, permission notices.
 */
const RUNTIME_TOP = "runtime/create-agent-runtime.ts";
const RUNTIME_ROOMS: string[][] = [
  ["records"],
  ["session"],
  ["events"],
  ["agents"],
  ["runner"],
  ["queue"],
  ["delegation"],
  ["background"],
  ["agent-tools", "tasks", "roles", "conversation"],
  ["decisions"],
];
const runtimeRankOf = new Map(RUNTIME_ROOMS.flatMap((rooms, rank) => rooms.map((room) => [room, rank] as const)));

/** The room of a file in src/runtime/ (`undefined` for the top file and files outside). */
const runtimeRoomOf = (file: string) =>
  file.startsWith("runtime/") && file.split("/").length === 3 ? file.split("/")[1] : undefined;

/** Longest function body allowed in src/, in lines (nested functions count toward their parent). */
const MAX_FUNCTION_LINES = 120;

/** Every function, method, accessor or arrow in src/ with a body: its file, name (as declared or assigned) and lines. */
function functions(): { file: string; name: string; lines: number }[] {
  const found: { file: string; name: string; lines: number }[] = [];
  for (const s of sources) {
    const { source } = s;
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const body = node.body as ts.Node;
        const lines =
          source.getLineAndCharacterOfPosition(body.end).line -
          source.getLineAndCharacterOfPosition(body.getStart(source)).line +
          1;
        const named =
          node.name ??
          (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)
            ? node.parent.name
            : undefined);
        found.push({ file: s.file, name: named?.getText(source) ?? "(anonymous)", lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Every function, method, accessor or arrow in src/ whose body spans more than MAX_FUNCTION_LINES lines. */
const longFunctions = () => functions().filter((f) => f.lines > MAX_FUNCTION_LINES);

describe("architecture", () => {
  it("the core imports nothing from node:*, statically or with import()", () => {
    const offenders = sources
      .filter((s) => !NODE_ONLY.test(s.file))
      .flatMap((s) =>
        s.imports
          .filter((i) => i.startsWith("node:") || ["fs", "path", "http", "child_process"].includes(i))
          .map((i) => `${s.file} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  it("only the sqlite adapter loads better-sqlite3", () => {
    const offenders = sources
      .filter((s) => !s.file.startsWith("sqlite/") && s.imports.includes("better-sqlite3"))
      .map((s) => s.file);
    expect(offenders).toEqual([]);
  });

  it("only the otel adapter loads @opentelemetry/api; @ai-sdk/* is never loaded at run time", () => {
    const otel = sources
      .filter((s) => !s.file.startsWith("otel/") && s.imports.some((i) => i.startsWith("@opentelemetry/")))
      .map((s) => s.file);
    expect(otel).toEqual([]);
    const aiSdk = sources
      .filter((s) => s.imports.some((i) => i.startsWith("@ai-sdk/") || i === "ai"))
      .map((s) => s.file);
    expect(aiSdk).toEqual([]);
  });

  it("adapters never import the loop or the runtime", () => {
    const offenders = sources
      .filter((s) => ADAPTERS.test(s.file))
      .flatMap((s) => s.imports.filter((i) => /(^|\/)(loop|runtime)\//.test(i)).map((i) => `${s.file} → ${i}`));
    expect(offenders).toEqual([]);
  });

  it("contracts import nothing from src/ and hold types only", () => {
    const contracts = sources.filter((s) => s.file.startsWith("contracts/"));
    expect(contracts.length).toBeGreaterThan(0);
    const imports = contracts.flatMap((s) =>
      s.imports.filter((i) => i.startsWith(".") && !/^\.\/[a-z-]+\.js$/.test(i)).map((i) => `${s.file} → ${i}`),
    );
    expect(imports).toEqual([]);
    const values = contracts.flatMap((s) =>
      [...s.text.matchAll(/^(?:export\s+)?(?:const|let|var|function|class|enum|async)\b.*$/gm)].map(
        (m) => `${s.file}: ${m[0]}`,
      ),
    );
    expect(values).toEqual([]);
    const valueImports = contracts.flatMap((s) =>
      [...s.text.matchAll(/^import\s+(?!type\b).*$/gm)].map((m) => `${s.file}: ${m[0]}`),
    );
    expect(valueImports).toEqual([]);
  });

  it("every folder of src/ has a layer", () => {
    const folders = [...new Set(sources.map((s) => folderOf(s.file)))];
    expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
  });

  it("a folder imports only from lower layers (no exceptions)", () => {
    const offenders: string[] = [];
    for (const [from, targets] of folderEdges()) {
      for (const [to, example] of targets)
        if (!(layerOf.get(to)! < layerOf.get(from)!))
          offenders.push(`${from} (layer ${layerOf.get(from)}) → ${to} (layer ${layerOf.get(to)}): ${example}`);
    }
    expect(offenders).toEqual([]);
  });

  it("the folder import graph has no cycle", () => {
    expect(cycles(folderEdges())).toEqual([]);
  });

  it("no file-level import cycle in src/ (type-only and dynamic imports count)", () => {
    expect(fileCycles(fileEdges())).toEqual([]);
  });

  it("import() only in bin/ (adapters it may not need) and testing/ (Node built-ins, computed specifiers)", () => {
    const offenders = sources
      .filter((s) => s.callsImport && !s.file.startsWith("bin/") && !s.file.startsWith("testing/"))
      .map((s) => s.file);
    expect(offenders).toEqual([]);
  });

  it("the import scan reads import() calls with a literal specifier, not type positions", () => {
    const code = 'await import("./a.js");\nawait import(name);\ntype B = typeof import("./b.js");\n';
    const source = ts.createSourceFile("x.ts", code, ts.ScriptTarget.Latest, true);
    expect(dynamicImportsOf(source)).toEqual({ specifiers: ["./a.js"], any: true });
    const none = ts.createSourceFile("y.ts", 'type B = typeof import("./b.js");\n', ts.ScriptTarget.Latest, true);
    expect(dynamicImportsOf(none)).toEqual({ specifiers: [], any: false });
  });

  it("the file-level cycle check finds a cycle", () => {
    const edges = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(fileCycles(edges)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("src/runtime/ is rooms under create-agent-runtime.ts: nothing else at the top, every room there", () => {
    const runtimeFiles = sources.map((s) => s.file).filter((file) => file.startsWith("runtime/"));
    expect(runtimeFiles.filter((file) => file.split("/").length === 2)).toEqual([RUNTIME_TOP]);
    const rooms = [...new Set(runtimeFiles.flatMap((file) => runtimeRoomOf(file) ?? []))].sort();
    expect(rooms).toEqual(RUNTIME_ROOMS.flat().sort());
    expect(runtimeFiles.filter((file) => file.split("/").length > 3)).toEqual([]);
  });

  it("the runtime's top file is its only entry, and a room imports only its own room and lower ones", () => {
    const offenders: string[] = [];
    for (const [from, targets] of fileEdges()) {
      const fromRoom = runtimeRoomOf(from);
      for (const to of targets) {
        const toRoom = runtimeRoomOf(to);
        if (!from.startsWith("runtime/") && to.startsWith("runtime/") && to !== RUNTIME_TOP) {
          offenders.push(`${from} → ${to} (outside the runtime, import ${RUNTIME_TOP})`);
        } else if (fromRoom !== undefined && to === RUNTIME_TOP)
          offenders.push(`${from} → ${to} (a room never imports the top file)`);
        else if (
          fromRoom !== undefined &&
          toRoom !== undefined &&
          fromRoom !== toRoom &&
          !(runtimeRankOf.get(toRoom)! < runtimeRankOf.get(fromRoom)!)
        ) {
          offenders.push(`${from} → ${to} (${fromRoom} is not above ${toRoom})`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the core never imports an adapter or the testing helpers (entries and the command-line tools aside)", () => {
    const offenders = sources
      .filter((s) => !/^(entries|bin|testing)\//.test(s.file) && !ADAPTERS.test(s.file))
      .flatMap((s) =>
        s.imports
          .filter((i) => /\/(testing|node|sqlite|postgres|mcp)\/|\/providers\/(openai|anthropic)\//.test(i))
          .map((i) => `${s.file} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  it("entry files are explicit barrels (no export * from implementation files)", () => {
    const entries = files(root).filter((p) => /[/\\](index|entries[/\\][a-z-]+)\.ts$/.test(p));
    for (const path of entries) expect(readFileSync(path, "utf8")).not.toMatch(/export \* from/);
  });

  it("names say what they do: one function runs a turn (the runner's `runTurn`); the runtime's queue (its only `enqueue`) queues one", () => {
    expect(
      functions()
        .filter((f) => f.name === "runTurn")
        .map((f) => f.file),
    ).toEqual(["runtime/runner/run-turn.ts"]);
    expect(
      functions()
        .filter((f) => f.name === "enqueue" && f.file.startsWith("runtime/"))
        .map((f) => f.file),
    ).toEqual(["runtime/queue/turn-queue.ts"]);
  });

  it(`no function in src/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    const long = longFunctions();
    expect(long.map((f) => `${f.file}: ${f.name} (${f.lines} lines)`)).toEqual([]);
  });
});

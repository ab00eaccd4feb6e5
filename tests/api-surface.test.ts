import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as core from "@agentry/core";
import * as aiSdk from "@agentry/core/ai-sdk";
import * as anthropic from "@agentry/core/anthropic";
import * as mcp from "@agentry/core/mcp";
import * as node from "@agentry/core/node";
import * as openai from "@agentry/core/openai";
import * as otel from "@agentry/core/otel";
import * as sqlite from "@agentry/core/sqlite";
import * as testing from "@agentry/core/testing";
import * as ui from "@agentry/core/ui";
import * as inspector from "@agentry/core/inspector";
import type {
  AgentRegistry,
  ApprovalDecision,
  LoopEvent,
  PlanReadyEvent,
  ResumeState,
  RuntimeEvent,
  SessionSelector,
  TaskApi,
  TurnBudget,
  TurnResult,
} from "@agentry/core";

/** Every value API.md names, by entry point: users and acceptance tests import these. */
const CONTRACT: Record<string, [Record<string, unknown>, string[]]> = {
  "@agentry/core": [
    core,
    [
      "defineTool",
      "defaultPolicy",
      "composeToolbelt",
      "scopeTools",
      "isPathInside",
      "roles",
      "ProviderError",
      "AgentryError",
      "runUnifiedAgentLoop",
      "DEFAULT_BUDGET",
      "createTurnBudget",
      "createAgentRegistry",
      "AgentConfigError",
      "MemorySessionStore",
      "resolveSession",
      "createAgentRuntime",
      "createEventBatcher",
      "toServerSentEvents",
    ],
  ],
  "@agentry/core/testing": [
    testing,
    [
      "createFakeProvider",
      "runSessionStoreContract",
      "createFakeOpenAIServer",
      "createFakeAnthropicServer",
      "createFakeResponsesServer",
      "runProviderContract",
      "recordProvider",
      "replayProvider",
    ],
  ],
  "@agentry/core/openai": [openai, ["openai", "deepseek", "moonshot", "zhipu", "minimax", "ProviderError"]],
  "@agentry/core/anthropic": [anthropic, ["anthropic", "ProviderError"]],
  "@agentry/core/node": [node, ["JsonlSessionStore"]],
  "@agentry/core/sqlite": [sqlite, ["SqliteSessionStore"]],
  "@agentry/core/ai-sdk": [aiSdk, ["fromAiSdk"]],
  "@agentry/core/otel": [otel, ["instrumentRuntime", "tracedLoop"]],
  "@agentry/core/ui": [ui, ["toUIMessageStream", "toAgUiEvents", "toTaskEvents", "createTaskEventTranslator"]],
  "@agentry/core/mcp": [mcp, ["connectMcpServer", "serveAgentsOverMcp"]],
  "@agentry/core/inspector": [inspector, ["createInspector", "toNodeHandler"]],
};

/** The main entry's exported names as a user's editor lists them: values and types, each once. */
function mainEntryExports(): { name: string; declared: ts.Symbol }[] {
  const file = fileURLToPath(new URL("../src/index.ts", import.meta.url));
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const entry = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker.getExportsOfModule(entry).map((symbol) => ({
    name: symbol.name,
    declared: symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
  }));
}

describe("the main entry's size", () => {
  const exported = mainEntryExports();

  it("exports at most 200 names", () => {
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.length).toBeLessThanOrEqual(200);
  });

  it("exports no deprecated alias", () => {
    const deprecated = exported.filter(({ declared }) =>
      declared.getJsDocTags().some((tag) => tag.name === "deprecated"),
    );
    expect(deprecated.map(({ name }) => name)).toEqual([]);
  });

  it("has one way to make a budget: createTurnBudget (TurnBudget is a type only)", () => {
    expect(typeof core.createTurnBudget).toBe("function");
    expect("TurnBudget" in core).toBe(false);
  });
});

describe("public API surface (API.md)", () => {
  it.each(Object.entries(CONTRACT))("%s exports every contracted name", (_entry, [module, names]) => {
    expect(names.filter((name) => !(name in module))).toEqual([]);
  });

  it("re-exports the one ProviderError from each provider entry", () => {
    expect(openai.ProviderError).toBe(core.ProviderError);
    expect(anthropic.ProviderError).toBe(core.ProviderError);
    expect(aiSdk.ProviderError).toBe(core.ProviderError);
    expect(new core.ProviderError("x", { provider: "p" }).name).toBe("ProviderError");
  });

  it("keeps the contracted shapes", () => {
    // `result` (optional, added for ask_user answers) is the call's result without running the tool.
    expectTypeOf<ApprovalDecision>().toEqualTypeOf<
      { approved: true; result?: unknown } | { approved: false; reason?: string } | { suspend: true }
    >();
    expectTypeOf<RuntimeEvent>().toMatchTypeOf<
      LoopEvent & { sessionId: string; agentId: string; runId: string; seq: number; ts: number }
    >();
    expectTypeOf<TurnResult>().toMatchTypeOf<{ sessionId: string; agentId: string; created: boolean; runId: string }>();
    expectTypeOf<ResumeState>().toMatchTypeOf<{
      frames: Record<string, unknown[]>;
      decisions: Record<string, { approved: boolean; reason?: string }>;
    }>();
    expectTypeOf<"latest">().toMatchTypeOf<SessionSelector>();
    expectTypeOf<AgentRegistry["get"]>().returns.toEqualTypeOf<core.AgentDefinition | undefined>();
    expectTypeOf(core.createTurnBudget).returns.toEqualTypeOf<TurnBudget>();
    expect(core.DEFAULT_BUDGET.maxDepth).toBe(3);
    expectTypeOf<keyof TaskApi>().toEqualTypeOf<
      "create" | "approve" | "revise" | "reply" | "rename" | "delete" | "cancel" | "get" | "list" | "artifacts"
    >();
    expectTypeOf<TaskApi["reply"]>().toEqualTypeOf<
      (taskId: string, content: string, guard?: core.TenantGuard) => Promise<TurnResult>
    >();
    expectTypeOf<PlanReadyEvent["summary"]>().toEqualTypeOf<{
      goal_summary: string;
      steps: { title: string; description: string }[];
      completion_criteria?: string[];
    }>();
  });
});

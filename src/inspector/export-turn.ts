import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { AssistantMessage } from "../contracts/message.js";
import type { RedactHook } from "./inspector-options.js";
import { notFound } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { loadRedacted } from "./redact-record.js";
import { visibleSession } from "./session-detail.js";
import type { TurnChain } from "./turn-records.js";
import { turnChains } from "./turn-records.js";

/** What {@link exportTurnAsTest} takes. */
export interface ExportTurnOptions {
  runtime: AgentRuntime;
  identity: InspectorIdentity;
  sessionId: string;
  /** The run id of the turn (or of any run that resumed it). */
  runId: string;
  redact: RedactHook | undefined;
}

/** A scripted model response, as `createFakeProvider` takes it. */
interface ScriptedTurn {
  text?: string;
  thinking?: string;
  toolCalls?: { id: string; name: string; args: unknown }[];
  usage?: { inputTokens: number; outputTokens: number };
}

/** What the exported test replays and expects. */
interface Replay {
  input: string;
  model: string;
  /** The model's responses by frame (`""` = the conversation, else the `run_subtask` call id), in order. */
  responses: Record<string, ScriptedTurn[]>;
  /** Model calls that failed, by frame: the error message (after the frame's responses). */
  failures: Record<string, string>;
  /** Stored tool results by tool call id. */
  results: Record<string, { result: unknown; isError: boolean }>;
  /** The names of the tools to stub (the loop's own `run_subtask` / `finish_subtask` excluded). */
  tools: string[];
  /** Calls that were waiting for a decision when the turn ended (suspended): their stubs ask again. */
  waiting: string[];
  expected: { status: string; text: string; calls: { id: string; name: string; args: unknown; isError: boolean }[] };
}

const LOOP_TOOLS = new Set(["run_subtask", "finish_subtask"]);

/**
 * A stored turn as a ready-to-run vitest file: the fake provider plays the model's responses from
 * the log (per frame, so sub-tasks replay too), the tools are stubs returning their stored results
 * (built from the records through the inspector's `redact`: every tool's arguments and results,
 * `run_subtask` and `finish_subtask` included, the model's text and the user's input), the agent's definition is the registry's, inline. The
 * test asserts the same tool calls (ids, names, arguments, errors), the same status and final text.
 */
export async function exportTurnAsTest(options: ExportTurnOptions): Promise<{ filename: string; source: string }> {
  const { runtime, identity, sessionId, runId } = options;
  const session = await visibleSession(runtime, identity, sessionId);
  const chain = turnChains(await loadRedacted(runtime, options.redact, sessionId)).find((c) => c.runIds.has(runId));
  if (!chain) throw notFound();
  const agent = runtime.registry.get(session.agentId) ?? { agentId: session.agentId, displayName: session.agentId };
  const replay = replayOf(chain);
  const filename = `replay-${safeName(session.agentId)}-${safeName(chain.runId).slice(0, 40)}.test.ts`;
  return { filename, source: testSource({ sessionId, runId: chain.runId, at: chain.start.at, agent, replay }) };
}

/** The replay of a chain of redacted records. */
function replayOf(chain: TurnChain): Replay {
  const replay: Replay = {
    input: "",
    model: "replay-model",
    responses: {},
    failures: {},
    results: {},
    tools: [],
    waiting: [],
    expected: { status: "", text: "", calls: [] },
  };
  const tools = new Set<string>();
  const usage = new Map<string, ScriptedTurn["usage"]>();
  for (const record of chain.records) {
    if (record.kind === "model_call") {
      replay.model = record.model;
      if (record.messageId !== undefined && record.usage)
        usage.set(record.messageId, { inputTokens: record.usage.inputTokens, outputTokens: record.usage.outputTokens });
      if (record.error !== undefined) replay.failures[record.frame ?? ""] = record.error;
    }
  }
  for (const record of chain.records) {
    if (record.kind === "message" && record.message.role === "user" && record.frame === null && replay.input === "") {
      const content = record.message.content;
      replay.input =
        typeof content === "string" ? content : content.map((p) => (p.type === "text" ? p.text : "")).join("");
    } else if (record.kind === "message" && record.message.role === "assistant") {
      const scripted = scriptedTurn(record.message);
      const counted = usage.get(record.id);
      if (counted) scripted.usage = counted;
      (replay.responses[record.frame ?? ""] ??= []).push(scripted);
      for (const call of scripted.toolCalls ?? []) {
        if (!LOOP_TOOLS.has(call.name)) tools.add(call.name);
        replay.expected.calls.push({ id: call.id, name: call.name, args: call.args, isError: false });
      }
      if (record.frame === null && scripted.text !== undefined) replay.expected.text = scripted.text;
    } else if (record.kind === "tool_result") {
      const { result, isError } = record.result;
      replay.results[record.toolCallId] = {
        result,
        isError: isError === true,
      };
    }
  }
  if (chain.end?.status === "suspended") {
    for (const record of chain.records) {
      if (
        record.kind === "approval" &&
        record.decision === undefined &&
        replay.results[record.request.toolCallId] === undefined
      ) {
        replay.waiting.push(record.request.toolCallId);
      }
    }
  }
  // A waiting call never ran: the replay expects it asked, not run.
  replay.expected.calls = replay.expected.calls.filter((call) => !replay.waiting.includes(call.id));
  for (const call of replay.expected.calls) call.isError = replay.results[call.id]?.isError ?? false;
  // The loop's own tools are not stubbed: only the host tools' calls are compared.
  replay.expected.calls = replay.expected.calls.filter((call) => !LOOP_TOOLS.has(call.name));
  replay.tools = [...tools].sort();
  replay.expected.status = chain.end?.status ?? "complete";
  return replay;
}

function scriptedTurn(message: AssistantMessage): ScriptedTurn {
  const turn: ScriptedTurn = {};
  const texts: string[] = [];
  const thinking: string[] = [];
  for (const part of message.content) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "thinking") thinking.push(part.text);
    else if (part.type === "tool_call") {
      (turn.toolCalls ??= []).push({ id: part.id, name: part.name, args: part.args });
    }
  }
  if (texts.length > 0) turn.text = texts.join("");
  if (thinking.length > 0) turn.thinking = thinking.join("");
  return turn;
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 60) || "turn";
}

/** JSON as a TypeScript expression (line and paragraph separators escaped for older parsers). */
function literal(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? "undefined").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

function testSource(input: { sessionId: string; runId: string; at: string; agent: object; replay: Replay }): string {
  const { replay } = input;
  const comment = (text: string) => text.replace(/\*\//g, "*\\/").replace(/[\r\n]+/g, " ");
  return `/**
 * Exported by the Agentry inspector: session ${comment(input.sessionId)},
 * turn ${comment(input.runId)} (${comment(input.at)}).
 * Replays the turn with the fake provider (the model's responses from the log, per frame) and
 * stubbed tools (their stored results), and checks the same tool calls and outcome.
 */
import { expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime, defineTool, MemorySessionStore } from "@agentry/core";
import type { ModelRequest } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import type { FakeTurn } from "@agentry/core/testing";

const agent = ${literal({ ...input.agent, chat: { provider: "replay", model: replay.model } })};

const input = ${literal(replay.input)};

/** The model's responses by frame ("" = the conversation, else the run_subtask call id), in order. */
const responses: Record<string, FakeTurn[]> = ${literal(replay.responses)};

/** Model calls that failed, by frame (played after that frame's responses). */
const failures: Record<string, string> = ${literal(replay.failures)};

/** Each tool call's stored result, by tool call id. */
const results: Record<string, { result: unknown; isError: boolean }> = ${literal(replay.results)};

/** Calls that were waiting for a decision when the turn ended: they ask again (the turn suspends). */
const waiting: string[] = ${literal(replay.waiting)};

const expected = ${literal(replay.expected)};

it(${literal(`replays turn ${input.runId} of session ${input.sessionId}`)}, async () => {
  const calls: { id: string; name: string; args: unknown; isError: boolean }[] = [];
  const stub = (name: string) =>
    defineTool({
      name,
      description: \`Replays the stored results of \${name}.\`,
      input: { type: "object", additionalProperties: true },
      permissionClass: "safe",
      requiresApproval: (_args: unknown, ctx) => waiting.includes(ctx.toolCallId),
      execute(args: unknown, ctx) {
        const stored = results[ctx.toolCallId];
        calls.push({ id: ctx.toolCallId, name, args, isError: stored?.isError ?? true });
        if (!stored) throw new Error(\`No stored result for \${ctx.toolCallId}\`);
        const text = typeof stored.result === "string" ? stored.result : JSON.stringify(stored.result);
        if (stored.isError) throw new Error(text);
        return stored.result;
      },
    });
  const provider = createFakeProvider((request: ModelRequest) => {
    const frame = request.caller?.parentId ?? "";
    const next = responses[frame]?.shift();
    if (next) return next;
    if (failures[frame] !== undefined) return { error: new Error(failures[frame]) };
    throw new Error(\`The log has no further response for frame "\${frame}"\`);
  });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([agent]),
    store: new MemorySessionStore(),
    providers: { replay: provider },
    defaultProvider: "replay",
    defaultModel: agent.chat.model,
    tools: ${literal(replay.tools)}.map(stub),
  });
  try {
    const result = await runtime.send({ agentId: agent.agentId, content: input });
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    expect([...calls].sort(byId)).toEqual([...expected.calls].sort(byId));
    expect(result.status).toBe(expected.status);
    expect(result.text).toBe(expected.text);
  } finally {
    await runtime.close();
  }
});
`;
}

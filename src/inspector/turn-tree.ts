import type { AssistantMessage, Message, UserMessage } from "../contracts/message.js";
import type { RuntimeMessageRecord } from "../runtime/create-agent-runtime.js";
import type { CompactionRecord, ModelCallRecord, RewindRecord } from "../contracts/session-store.js";
import type { NodeTokens, TreeNode, TreeNodeKind, TurnNode } from "./inspector-api-types.js";
import type { InspectedRecord, TurnChain } from "./turn-records.js";

const LABEL_CHARS = 80;
const ERROR_CHARS = 300;

/** The tree node kind of a tool call, by the tool's name. */
export function toolNodeKind(name: string): TreeNodeKind {
  switch (name) {
    case "run_subtask":
      return "subtask";
    case "agents_message":
      return "delegation";
    case "start_background_agent":
      return "background";
    default:
      return "tool_call";
  }
}

/** The id of a tool call's node (tool call ids are unique within a turn chain only). */
export function toolNodeId(chain: TurnChain, toolCallId: string): string {
  return `t:${chain.runId}:${toolCallId}`;
}

/** The id of a model call's node: its response message's record id, or the model call record's. */
export function modelNodeId(recordId: string): string {
  return `m:${recordId}`;
}

/** Builds the execution tree of one turn chain from its records. */
export function buildTurnTree(chain: TurnChain, turnNumber: number): TurnNode {
  const turn: TurnNode = {
    id: `r:${chain.runId}`,
    kind: "turn",
    label: `Turn ${turnNumber}`,
    runId: chain.runId,
    turnNumber,
    children: [],
  };
  turn.startedAt = chain.start.at;
  const tools = new Map<string, TreeNode>();
  const models = new Map<string, TreeNode>();
  const parentOf = (frame: string | null): TreeNode => (frame === null ? turn : (tools.get(frame) ?? turn));
  for (const record of chain.records) addRecord(chain, record, { turn, tools, models, parentOf });
  closeTurn(chain, turn);
  sumTokens(turn);
  return turn;
}

interface TreeState {
  turn: TurnNode;
  tools: Map<string, TreeNode>;
  models: Map<string, TreeNode>;
  parentOf(frame: string | null): TreeNode;
}

function addRecord(chain: TurnChain, record: InspectedRecord, state: TreeState): void {
  switch (record.kind) {
    case "message":
      if (typeof (record as RuntimeMessageRecord).steerOf === "string" && record.message.role === "user")
        addSteered(record.id, record.at, record.message.content, state);
      else addMessage(chain, record.id, record.frame, record.message, state);
      return;
    case "model_call":
      addModelCall(record, state);
      return;
    case "tool_result": {
      const node = state.tools.get(record.toolCallId);
      if (!node) return;
      node.status = record.result.isError ? "error" : "ok";
      if (record.result.isError) node.error = short(textOf(record.result.result), ERROR_CHARS);
      const target = targetSession(record.result.result);
      if (target !== undefined && (node.kind === "delegation" || node.kind === "background")) node.sessionId = target;
      return;
    }
    case "audit": {
      const node = state.tools.get(record.entry.toolCallId);
      if (!node) return;
      node.startedAt ??= record.entry.startedAt;
      node.durationMs = (node.durationMs ?? 0) + record.entry.durationMs;
      if (record.entry.decision === "refused" || record.entry.decision === "denied")
        node.status = record.entry.decision;
      return;
    }
    case "approval": {
      const node = state.tools.get(record.request.toolCallId);
      if (!node || record.request.waitsOn !== undefined) return;
      const id = `a:${record.request.requestId}`;
      let child = node.children.find((c) => c.id === id);
      if (!child) {
        child = {
          id,
          kind: record.question ? "question" : "approval",
          label: record.question ? "question" : record.request.reason,
          status: "pending",
          children: [],
        };
        child.startedAt = record.at;
        node.children.push(child);
      }
      if (record.decision !== undefined) child.status = record.decision;
      return;
    }
    case "rewind":
      state.turn.children.push(rewindNode(record));
      return;
    case "compaction":
      state.turn.children.push(compactionNode(record));
      return;
    default:
      return;
  }
}

/** A rewind stored after a turn (`runtime.rewind`, an edit, a regeneration): where the context resumed, what stayed done. */
function rewindNode(record: RewindRecord & { at: string }): TreeNode {
  const calls = (Array.isArray(record.toolCalls) ? record.toolCalls.length : 0) + (record.toolCallsOmitted ?? 0);
  const node: TreeNode = {
    id: `w:${record.id}`,
    kind: "rewind",
    label: short(
      `${record.cause ?? "rewind"}: context resumes before ${String(record.before)}` +
        (calls > 0 ? ` · ${calls} tool call${calls === 1 ? "" : "s"} after it not undone` : ""),
      LABEL_CHARS,
    ),
    children: [],
  };
  node.startedAt = record.at;
  return node;
}

/** The id of a compaction's node. */
export function compactionNodeId(recordId: string): string {
  return `c:${recordId}`;
}

/** A compaction as a row of its turn: the sizes and the summary's first words (the drawer shows all of it). */
function compactionNode(record: CompactionRecord): TreeNode {
  const first = record.summary.replace(/\s+/g, " ").trim();
  return {
    id: compactionNodeId(record.id),
    kind: "compaction",
    label: short(`context compacted ~${record.tokensBefore} → ~${record.tokensAfter} tokens: ${first}`, LABEL_CHARS),
    status: record.source,
    startedAt: record.at,
    children: [],
  };
}

function addMessage(chain: TurnChain, id: string, frame: string | null, message: Message, state: TreeState): void {
  if (message.role === "user" && frame === null && state.turn.label.startsWith("Turn ")) {
    const text =
      typeof message.content === "string"
        ? message.content
        : message.content.map((p) => (p.type === "text" ? p.text : "")).join(" ");
    if (text.trim() !== "") state.turn.label = `Turn ${state.turn.turnNumber}: ${short(text.trim(), LABEL_CHARS)}`;
    return;
  }
  if (message.role !== "assistant") return;
  const node: TreeNode = { id: modelNodeId(id), kind: "model_call", label: "model call", children: [] };
  state.models.set(id, node);
  state.parentOf(frame).children.push(node);
  addToolCalls(chain, message, node, state);
}

/** A message steered into the running turn (`ifBusy: "steer"`), where the turn read it. */
function addSteered(id: string, at: string, content: UserMessage["content"], state: TreeState): void {
  // A steered message that ran as its own turn is that turn's input: its label, as any input.
  if (!state.turn.children.some((c) => c.kind === "model_call")) {
    const text =
      typeof content === "string" ? content : content.map((p) => (p.type === "text" ? p.text : "")).join(" ");
    if (text.trim() !== "") state.turn.label = `Turn ${state.turn.turnNumber}: ${short(text.trim(), LABEL_CHARS)}`;
    return;
  }
  const text = typeof content === "string" ? content : content.map((p) => (p.type === "text" ? p.text : "")).join(" ");
  const node: TreeNode = {
    id: `s:${id}`,
    kind: "steered",
    label: `steered: ${short(text.trim(), LABEL_CHARS)}`,
    children: [],
  };
  node.startedAt = at;
  state.turn.children.push(node);
}

function addToolCalls(chain: TurnChain, message: AssistantMessage, parent: TreeNode, state: TreeState): void {
  for (const part of message.content) {
    if (part.type !== "tool_call") continue;
    const kind = toolNodeKind(part.name);
    const node: TreeNode = {
      id: toolNodeId(chain, part.id),
      kind,
      label: toolLabel(kind, part.name, part.args),
      status: "running",
      children: [],
    };
    state.tools.set(part.id, node);
    parent.children.push(node);
  }
}

function addModelCall(record: ModelCallRecord, state: TreeState): void {
  let node = record.messageId === undefined ? undefined : state.models.get(record.messageId);
  if (!node) {
    node = { id: modelNodeId(record.id), kind: "model_call", label: "model call", children: [] };
    state.parentOf(record.frame).children.push(node);
  }
  node.label = record.model;
  node.startedAt = record.startedAt;
  node.durationMs = record.durationMs;
  node.status = record.error === undefined ? "ok" : "error";
  if (record.error !== undefined) node.error = short(record.error, ERROR_CHARS);
  if (record.usage) node.tokens = tokensOf(record.usage);
  if (record.costUsd !== undefined) node.costUsd = record.costUsd;
}

function closeTurn(chain: TurnChain, turn: TurnNode): void {
  const end = chain.end;
  if (!end) {
    turn.status = "running";
    return;
  }
  turn.status = end.status ?? "complete";
  turn.durationMs = Math.max(0, Date.parse(end.at) - Date.parse(chain.start.at));
  if (end.status === "budget_exceeded") turn.budgetStop = true;
  if (end.error) turn.error = short(end.error.message, ERROR_CHARS);
  // Stopped by the runtime (stopTurn, an interrupting message, a role switch): say why.
  if (typeof end.reason === "string") turn.error = short(`Stopped: ${end.reason}`, ERROR_CHARS);
  if (end.usage) {
    turn.tokens = tokensOf(end.usage);
    if (end.usage.costUsd !== undefined) turn.costUsd = end.usage.costUsd;
  }
}

/** Nodes that group calls (sub-tasks) get the sum of the model calls below them; returns the subtree's sum. */
function sumTokens(node: TreeNode): { tokens?: NodeTokens; costUsd?: number } {
  let tokens = node.kind === "model_call" ? node.tokens : undefined;
  let costUsd = node.kind === "model_call" ? node.costUsd : undefined;
  for (const child of node.children) {
    const sum = sumTokens(child);
    if (sum.tokens) tokens = addTokens(tokens, sum.tokens);
    if (sum.costUsd !== undefined) costUsd = (costUsd ?? 0) + sum.costUsd;
  }
  if (node.kind !== "turn" && node.kind !== "model_call" && node.children.length > 0) {
    if (tokens) node.tokens = tokens;
    if (costUsd !== undefined) node.costUsd = costUsd;
  }
  return { ...(tokens && { tokens }), ...(costUsd !== undefined && { costUsd }) };
}

function addTokens(a: NodeTokens | undefined, b: NodeTokens): NodeTokens {
  if (!a) return { ...b };
  const sum: NodeTokens = { input: a.input + b.input, output: a.output + b.output };
  if (a.cached !== undefined || b.cached !== undefined) sum.cached = (a.cached ?? 0) + (b.cached ?? 0);
  return sum;
}

function tokensOf(usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number }): NodeTokens {
  const tokens: NodeTokens = { input: usage.inputTokens, output: usage.outputTokens };
  if (usage.cachedInputTokens) tokens.cached = usage.cachedInputTokens;
  return tokens;
}

function toolLabel(kind: TreeNodeKind, name: string, args: unknown): string {
  const fields = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  if (kind === "subtask" && typeof fields.title === "string") return `sub-task: ${short(fields.title, LABEL_CHARS)}`;
  if ((kind === "delegation" || kind === "background") && typeof fields.agentId === "string")
    return `${name} → ${fields.agentId}`;
  return name;
}

/** The session a delegation's or background agent's result names. */
function targetSession(result: unknown): string | undefined {
  const value = typeof result === "string" ? tryParse(result) : result;
  if (typeof value !== "object" || value === null) return undefined;
  const id = (value as Record<string, unknown>).sessionId;
  return typeof id === "string" ? id : undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A value as short text (strings as they are, the rest as JSON). */
export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

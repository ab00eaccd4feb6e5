import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { AuditEntry } from "../contracts/audit-entry.js";
import type { ToolCallPart, ToolResultPart } from "../contracts/message.js";
import type { CompactionRecord, ModelCallRecord, PromptRecord } from "../contracts/session-store.js";
import type { RedactHook } from "./inspector-options.js";
import type { CompactionDetail, ModelCallDetail, NodeDetailResponse, ToolCallDetail } from "./inspector-api-types.js";
import { notFound } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { visibleSession } from "./session-detail.js";
import type { InspectedRecord, TurnChain } from "./turn-records.js";
import { turnChains } from "./turn-records.js";
import { loadRedacted } from "./redact-record.js";
import { buildTurnTree } from "./turn-tree.js";
import type { TreeNode } from "./inspector-api-types.js";

/**
 * The detail of one node of a session's trees, built from its redacted records (`m:` model calls, `t:` tool calls,
 * `c:` compactions, others as their tree node).
 */
export async function nodeDetail(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  sessionId: string,
  nodeId: string,
  redact: RedactHook | undefined,
): Promise<NodeDetailResponse> {
  await visibleSession(runtime, identity, sessionId);
  const stored = await loadRedacted(runtime, redact, sessionId);
  const records: InspectedRecord[] = stored;
  if (nodeId.startsWith("m:")) return modelCallDetail(records, nodeId.slice(2));
  if (nodeId.startsWith("c:")) return compactionDetail(records, nodeId.slice(2));
  const chains = turnChains(stored);
  if (nodeId.startsWith("t:")) {
    const chain = chains.find((c) => nodeId.startsWith(`t:${c.runId}:`));
    if (chain) return toolCallDetail(chain, nodeId.slice(`t:${chain.runId}:`.length));
  }
  for (const [i, chain] of chains.entries()) {
    const node = findNode(buildTurnTree(chain, i + 1), nodeId);
    if (node) return { kind: "other", node };
  }
  throw notFound();
}

function findNode(node: TreeNode, id: string): TreeNode | undefined {
  if (node.id === id) return node;
  for (const child of node.children) {
    const found = findNode(child, id);
    if (found) return found;
  }
  return undefined;
}

function modelCallDetail(records: InspectedRecord[], recordId: string): ModelCallDetail {
  let response: unknown;
  let call: ModelCallRecord | undefined;
  const prompts = new Map<string, PromptRecord>();
  for (const record of records) {
    if (record.kind === "message" && record.id === recordId) response = record.message;
    else if (record.kind === "model_call" && (record.id === recordId || record.messageId === recordId)) call = record;
    else if (record.kind === "prompt") prompts.set(record.digest, record);
  }
  if (response === undefined && call === undefined) throw notFound();
  const detail: ModelCallDetail = { kind: "model_call" };
  if (response !== undefined) detail.response = response;
  if (!call) return detail;
  detail.model = call.model;
  detail.provider = call.provider;
  detail.messagesCount = call.messagesCount;
  detail.durationMs = call.durationMs;
  const system = prompts.get(call.systemDigest)?.system;
  if (system !== undefined) detail.system = system;
  const tools = prompts.get(call.toolsDigest)?.tools;
  if (tools !== undefined) detail.tools = tools;
  if (call.usage) {
    detail.tokens = { input: call.usage.inputTokens, output: call.usage.outputTokens };
    if (call.usage.cachedInputTokens) detail.tokens.cached = call.usage.cachedInputTokens;
  }
  if (call.costUsd !== undefined) detail.costUsd = call.costUsd;
  return detail;
}

/** A compaction's detail, from its redacted record. */
function compactionDetail(records: InspectedRecord[], recordId: string): CompactionDetail {
  const record = records.find((r): r is CompactionRecord => r.kind === "compaction" && r.id === recordId);
  if (!record) throw notFound();
  const detail: CompactionDetail = {
    kind: "compaction",
    summary: record.summary,
    source: record.source,
    trigger: record.runId === undefined ? "manual" : "auto",
    tokensBefore: record.tokensBefore,
    tokensAfter: record.tokensAfter,
    summarizedMessages: record.summarizedMessages,
  };
  if (record.instructions !== undefined) detail.instructions = record.instructions;
  return detail;
}

/** A tool call's detail, from redacted records. */
function toolCallDetail(chain: TurnChain, toolCallId: string): ToolCallDetail {
  let call: ToolCallPart | undefined;
  let result: ToolResultPart | undefined;
  let audit: AuditEntry | undefined;
  for (const record of chain.records) {
    if (record.kind === "message" && record.message.role === "assistant") {
      call ??= record.message.content.find((p): p is ToolCallPart => p.type === "tool_call" && p.id === toolCallId);
    } else if (record.kind === "tool_result" && record.toolCallId === toolCallId) result = record.result;
    else if (record.kind === "audit" && record.entry.toolCallId === toolCallId && chain.runIds.has(record.entry.runId))
      audit = record.entry;
  }
  if (!call) throw notFound();
  const detail: ToolCallDetail = {
    kind: "tool_call",
    toolCallId,
    name: call.name,
    args: call.args,
  };
  if (result) {
    detail.result = result.result;
    if (result.isError) detail.isError = true;
  }
  if (audit) {
    detail.audit = audit;
    detail.decision = audit.decision;
    detail.digest = audit.argsDigest;
  }
  return detail;
}

/**
 * What the policy made of a tool call: `allowed` (ran without needing approval), `refused`
 * (never ran: see `reason`), `approved` (needed approval and got it), `denied` (needed approval
 * and did not get it: see `reason`).
 */
export type AuditDecision = "allowed" | "refused" | "approved" | "denied";

/**
 * One audited tool call. Every tool call of every turn
 * (host tools, MCP tools, the runtime's agent tools, `run_subtask` / `finish_subtask` and the
 * calls inside sub-tasks; refused calls included) gets exactly one entry, written when the call
 * ends: stored in the session's log as a record `{ kind: "audit", entry }` and handed to the
 * runtime's `audit` option. An entry never holds the call's arguments or result (they may carry
 * secrets); `argsDigest` lets an auditor match it to the call kept in the session's history.
 */
export interface AuditEntry {
  /** `${runId}:${toolCallId}`: unique within a store. */
  entryId: string;
  sessionId: string;
  /** The session's scope, when it has one. */
  scope?: string;
  agentId: string;
  /**
   * The run in which the call ended. A call suspended for approval ends (and is audited) in the
   * run that resumes it.
   */
  runId: string;
  toolCallId: string;
  /** The tool's name as the model called it (`fs.read_text_file`), unknown names included. */
  tool: string;
  /** The MCP server of the tool (`Tool.mcpServer`), when it is an MCP tool. */
  server?: string;
  /** 0 at the root; sub-task calls are deeper. */
  depth: number;
  /** `toolCallId` of the enclosing `run_subtask`; null at the root. */
  parentId: string | null;
  /**
   * SHA-256 (lowercase hex) of the arguments as the model sent them (parsed from JSON when sent
   * as a string), serialized as canonical JSON: object keys sorted by UTF-16 code units (RFC 8785
   * order), no whitespace, `undefined` members left out. Equal arguments give equal digests
   * whatever their key order. Arguments that are not valid JSON are hashed as the raw string.
   */
  argsDigest: string;
  decision: AuditDecision;
  /**
   * Why, for `refused` (a `ToolRefusal` code of the call's `end` event: never the model's text, which may echo
   * argument values) and `denied` (the decision's reason, capped at 200 characters; `"superseded"`
   * or `"interrupted"` when a new message or a crash retired the request).
   */
  reason?: string;
  /** The approval request's id, for calls that needed approval. */
  approvalRequestId?: string;
  /**
   * When the call started (ISO). For a call resumed after a suspension: when the resuming run took
   * it up; for a call retired without running: when it was retired.
   */
  startedAt: string;
  /** From `startedAt` to the call's end; the wait for an approval decision across runs is not counted. */
  durationMs: number;
  /** The result the model got was an error (every refused or denied call is one). */
  isError: boolean;
  /**
   * What the host's hooks changed: `"args"` (`beforeToolCall` ran the tool with other arguments
   * than `argsDigest`'s), `"result"` (`afterToolCall` replaced what the model got). A call the
   * hook blocked is `refused` with reason `hook_blocked`.
   */
  rewritten?: ("args" | "result")[];
}

import type { Message } from "../../contracts/message.js";
import { sha256Hex } from "../../internal/sha256.js";
import type { LoopEvent, ToolCallUpdateEvent } from "../../contracts/loop-event.js";
import type { ApprovalRequest, ResumeState } from "../../contracts/loop-result.js";
import type { ToolPolicy } from "../../contracts/tool-policy.js";
import type { AuditDecision, AuditEntry } from "../../contracts/audit-entry.js";
import type { AuditRecord, NewRecord, SessionSummary } from "../../contracts/session-store.js";
import type { Tool } from "../../contracts/tool.js";
import { canonicalJson } from "../../internal/canonical-json.js";
import { errorMessage } from "../../loop/tool-result.js";

/** Longest `reason` kept in an entry (a denial's reason comes from the host or the approver). */
const MAX_REASON_CHARS = 200;

/** An audit record before the store stamps it. */
export type NewAuditRecord = Omit<AuditRecord, "seq" | "at">;

/** What a turn's audit trail needs to know. */
export interface AuditTrailOptions {
  session: SessionSummary;
  agentId: string;
  runId: string;
  /** The turn's toolbelt. */
  tools: readonly Tool[];
  /** The host's tools (for a call of a tool left out of the toolbelt: its server, and why). */
  hostTools: () => readonly Tool[];
  policy: ToolPolicy;
  /** The root history the turn starts from (a resumed call's arguments are found there). */
  history: readonly Message[];
  resume: ResumeState | undefined;
  /** The runtime's `audit` option. */
  deliver: ((entry: AuditEntry) => void | Promise<void>) | undefined;
  /** Reports a delivery that failed (a `warning` event, code `audit_failed`). */
  warn: (event: LoopEvent) => void;
}

interface Started {
  at: number;
  digest: Promise<string>;
}

/**
 * One turn's audit trail: follows the turn's events and makes one {@link AuditEntry} per tool
 * call as it ends (`end`), and one per call whose pending approval a new message or a crash
 * retired (`retired`). The caller stores the records, then hands each entry to `deliver`.
 */
export class AuditTrail {
  readonly #options: AuditTrailOptions;
  readonly #started = new Map<string, Started>();
  /** Approval request id by toolCallId, and decisions by request id. */
  readonly #requests = new Map<string, string>();
  readonly #decisions = new Map<string, { approved: boolean; reason?: string }>();
  #argsById: Map<string, unknown> | undefined;
  #pending: Promise<void>[] = [];

  constructor(options: AuditTrailOptions) {
    this.#options = options;
    for (const [toolCallId, decision] of Object.entries(options.resume?.decisions ?? {})) {
      this.#requests.set(toolCallId, decision.requestId ?? toolCallId);
    }
  }

  /** Notes what an entry will need: call starts (time, argument digest) and approvals. */
  observe(event: LoopEvent): void {
    if (event.type === "tool_call_update") {
      if (event.status === "start")
        this.#started.set(event.toolCallId, { at: Date.now(), digest: argsDigest(event.args) });
    } else if (event.type === "approval_request") {
      this.#requests.set(event.request.toolCallId, event.request.requestId);
    } else if (event.type === "approval_resolved") {
      this.#decisions.set(event.requestId, {
        approved: event.approved,
        ...(event.reason !== undefined && { reason: event.reason }),
      });
    }
  }

  /** The audit record of a call that ended (its `end` event). */
  async end(event: ToolCallUpdateEvent): Promise<NewAuditRecord> {
    const started = this.#started.get(event.toolCallId);
    this.#started.delete(event.toolCallId);
    const durationMs = Math.max(0, event.durationMs ?? 0);
    // A call resumed from an earlier run had its start there: its arguments are in the history.
    const digest = started ? await started.digest : await argsDigest(this.#resumedArgs(event.toolCallId));
    const requestId = this.#requests.get(event.toolCallId);
    const decision = requestId === undefined ? undefined : this.#decisions.get(requestId);
    let verdict: AuditDecision = "allowed";
    let reason: string | undefined;
    if (decision && !decision.approved) {
      verdict = "denied";
      reason = decision.reason;
    } else if (event.refused !== undefined) {
      verdict = "refused";
      reason = this.#refinedRefusal(event);
    } else if (decision) verdict = "approved";
    const tool = this.#toolNamed(event.name);
    return this.#record({
      toolCallId: event.toolCallId,
      tool: event.name,
      server: tool?.mcpServer,
      depth: event.depth,
      parentId: event.parentId,
      argsDigest: digest,
      decision: verdict,
      reason,
      approvalRequestId: requestId,
      startedAt: new Date(started ? started.at : Date.now() - durationMs).toISOString(),
      durationMs,
      isError: event.isError === true,
      ...(event.rewritten !== undefined && { rewritten: [...event.rewritten] }),
    });
  }

  /**
   * Audit records for the calls whose approvals `preface` (a new turn's repair records) denies
   * as `"superseded"` or `"interrupted"`: they never ran and never get an `end` event.
   */
  async retired(preface: readonly NewRecord[]): Promise<NewAuditRecord[]> {
    const records: NewAuditRecord[] = [];
    for (const record of preface) {
      if (record.kind !== "approval" || record.decision !== "denied") continue;
      const request: ApprovalRequest = record.request;
      records.push(
        this.#record({
          toolCallId: request.toolCallId,
          tool: request.name,
          server: this.#toolNamed(request.name)?.mcpServer,
          depth: request.depth,
          parentId: request.parentId,
          argsDigest: await argsDigest(request.args),
          decision: "denied",
          reason: record.reason,
          approvalRequestId: request.requestId,
          startedAt: new Date().toISOString(),
          durationMs: 0,
          isError: true,
        }),
      );
    }
    return records;
  }

  /**
   * Hands a stored entry to the `audit` option. A callback that throws or rejects is reported
   * (`warning`, code `audit_failed`); it never breaks the turn. `settled` waits for it.
   */
  deliver(entry: AuditEntry): void {
    const deliver = this.#options.deliver;
    if (!deliver) return;
    const fail = (error: unknown) =>
      this.#options.warn({
        type: "warning",
        code: "audit_failed",
        message:
          `The audit callback failed for tool call ${entry.toolCallId} ("${entry.tool}"): ${errorMessage(error)}`.slice(
            0,
            1_000,
          ),
        depth: entry.depth,
        parentId: entry.parentId,
      });
    try {
      const pending = deliver(entry);
      // Any thenable the callback returns is followed (`Promise.resolve` adopts it).
      if (pending) this.#pending.push(Promise.resolve(pending).then(() => undefined, fail));
    } catch (error) {
      fail(error);
    }
  }

  /** Resolves once every delivery handed out so far has finished (failures reported). */
  async settled(): Promise<void> {
    while (this.#pending.length > 0) {
      const pending = this.#pending;
      this.#pending = [];
      await Promise.all(pending);
    }
  }

  #record(
    fields: Omit<
      AuditEntry,
      "entryId" | "sessionId" | "scope" | "agentId" | "runId" | "server" | "reason" | "approvalRequestId"
    > & {
      server: string | undefined;
      reason: string | undefined;
      approvalRequestId: string | undefined;
    },
  ): NewAuditRecord {
    const { session, agentId, runId } = this.#options;
    const { server, reason, approvalRequestId, ...rest } = fields;
    const entry: AuditEntry = {
      entryId: `${runId}:${fields.toolCallId}`,
      sessionId: session.sessionId,
      ...(session.scope !== undefined && { scope: session.scope }),
      agentId,
      runId,
      ...rest,
      ...(server !== undefined && { server }),
      ...(reason !== undefined && {
        reason: reason.length > MAX_REASON_CHARS ? reason.slice(0, MAX_REASON_CHARS - 1) + "…" : reason,
      }),
      ...(approvalRequestId !== undefined && { approvalRequestId }),
    };
    return { id: `${runId}:audit:${fields.toolCallId}`, frame: fields.parentId, kind: "audit", entry };
  }

  #toolNamed(name: string): Tool | undefined {
    return this.#options.tools.find((tool) => tool.name === name) ?? this.#hostTool(name);
  }

  #hostTool(name: string): Tool | undefined {
    try {
      return this.#options.hostTools().find((tool) => tool.name === name);
    } catch {
      return undefined;
    }
  }

  /**
   * A call of a tool the host has but the toolbelt left out is "unknown" to the loop; the audit
   * says why it was left out when the policy tells: its MCP server is not allowed, or it is not
   * permitted here (class, role, the agent's tool scope, the chat context).
   */
  #refinedRefusal(event: ToolCallUpdateEvent): string {
    if (event.refused !== "unknown_tool") return event.refused!;
    const tool = this.#options.tools.some((candidate) => candidate.name === event.name)
      ? undefined
      : this.#hostTool(event.name);
    if (!tool) return "unknown_tool";
    if (tool.mcpServer !== undefined && !this.#options.policy.allowedMcpServers.includes(tool.mcpServer))
      return "mcp_server_not_allowed";
    return "not_permitted";
  }

  /** The arguments of a call made in an earlier run, from the history (root and sub-task frames). */
  #resumedArgs(toolCallId: string): unknown {
    if (!this.#argsById) {
      const byId = new Map<string, unknown>();
      const scan = (messages: readonly Message[]) => {
        for (const message of messages) {
          if (message.role !== "assistant") continue;
          for (const part of message.content) if (part.type === "tool_call") byId.set(part.id, parsedArgs(part.args));
        }
      };
      scan(this.#options.history);
      for (const frame of Object.values(this.#options.resume?.frames ?? {})) scan(frame);
      this.#argsById = byId;
    }
    return this.#argsById.get(toolCallId);
  }
}

/** Arguments as the loop reads them: a string is parsed as JSON (empty means `{}`), else kept as the raw string. */
function parsedArgs(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return args.trim() === "" ? {} : (JSON.parse(args) as unknown);
  } catch {
    return args;
  }
}

/**
 * Longest canonical text hashed inline (`sha256Hex`: 4 µs for 13 bytes, 8.5 µs for 1 KB, 29 µs for
 * 4 KB, where Web Crypto costs 25-33 µs at any of these sizes); longer goes to Web Crypto.
 */
const INLINE_DIGEST_BYTES = 2048;

/**
 * SHA-256 (lowercase hex) of the canonical JSON of `args`: up to 2 KiB in plain JavaScript
 * (`sha256Hex`), longer with Web Crypto (`crypto.subtle`, in Node 20+, browsers, Deno, Bun and
 * workers). Arguments that cannot be serialized (a cycle, a
 * bigint, absurd nesting) are hashed as the text `"<unserializable>"`.
 */
export async function argsDigest(args: unknown): Promise<string> {
  let text: string;
  try {
    text = canonicalJson(args);
  } catch {
    text = "<unserializable>";
  }
  const bytes = new TextEncoder().encode(text);
  // Short arguments (nearly all) are hashed here, at a tenth of Web Crypto's cost; long ones there.
  if (bytes.length <= INLINE_DIGEST_BYTES) return sha256Hex(bytes);
  const hash = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  let hex = "";
  for (const byte of new Uint8Array(hash)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

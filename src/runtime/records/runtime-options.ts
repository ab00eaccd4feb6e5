import type { ApprovalHandler } from "../../contracts/loop-result.js";
import type { PricingTable, Provider } from "../../contracts/provider.js";
import type { AuditEntry } from "../../contracts/audit-entry.js";
import type { ExternalAgentHandler } from "./external-agent-handler.js";
import type { RoleDefinition } from "../../modes/roles.js";
import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { PromptSection, PromptSectionSource, Skill } from "../../agents/build-system-prompt.js";
import type { BudgetLimits } from "../../contracts/budget.js";
import type { ChatContext, ToolPolicy } from "../../contracts/tool-policy.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { SessionStore, SessionSummary } from "../../contracts/session-store.js";
import type { Tool } from "../../contracts/tool.js";
import type { RuntimeHooks } from "../../contracts/hooks.js";
import type { CompactionOptions } from "../../contracts/compaction.js";

/** What a `policy` function is told of the turn it makes the policy for. */
export interface PolicyTurn<C = JsonValue> {
  chatContext: ChatContext;
  /** The turn's host context (`SendInput.context`). */
  context?: C;
}

/** Options of `createAgentRuntime`. `C` types the host context of `send` (`SendInput.context`). */
export interface AgentRuntimeOptions<C = JsonValue> {
  registry: AgentRegistry;
  store: SessionStore;
  /** Providers by id; an agent picks one with `chat.provider`. */
  providers: Record<string, Provider>;
  /** @default the only provider when exactly one is given, else `"openai"` when registered */
  defaultProvider?: string;
  /** Model for agents without `chat.model`. */
  defaultModel?: string;
  /**
   * Tools the host registers (agents see them through their scope and the policy). A function is
   * called at the start of every turn (tools that change, e.g. an MCP server's: `toolsWithMcp`);
   * while it returns the same array, prepared toolbelts are reused.
   */
  tools?: Tool<any, any, C>[] | (() => Tool<any, any, C>[]);
  /** CLI skills listed in prompts of agents with `toolExposure` `skills`/`mixed`. */
  skills?: Skill[];
  /**
   * The tool policy, or a function making it for each turn from the session (its `scope`), the
   * agent and the turn (`chatContext`, and the host `context` of `send`).
   * @default defaultPolicy(chatContext?.kind ?? "thread")
   */
  policy?: ToolPolicy | ((session: SessionSummary, agent: AgentDefinition, turn: PolicyTurn<C>) => ToolPolicy);
  /** Runtime-wide limits; an agent's own `budget` overrides them. */
  budget?: Partial<BudgetLimits>;
  /**
   * Decides approvals; `info` has the call's session, agent, scope, run and host `context`.
   * Without one, a call that needs approval suspends its turn.
   */
  approve?: ApprovalHandler<C>;
  /**
   * Told of every tool call as it ends (every tool call is audited): one
   * {@link AuditEntry} per call of every turn, at every depth, refused and denied calls included,
   * after the entry is stored in the session's log (`runtime.auditLog`). Entries never hold the
   * arguments or results, only a digest of the arguments. The turn waits for a returned promise
   * before its `done` (not before its next step); a callback that throws or rejects is reported as
   * a `warning` event (code `audit_failed`) and never breaks the turn.
   * @default none (entries are still stored)
   */
  audit?: (entry: AuditEntry) => void | Promise<void>;
  /**
   * Handlers of agents with `type: "external"`, by agent id: each turn of such an agent (a message
   * sent to it, a delegated `agents_message`, a background start, a system message) is answered
   * by its handler instead of a model (see {@link ExternalAgentHandler}). An external agent with
   * no handler here runs as a chat agent (its `chat` provider and model). A key naming an unknown
   * agent, or one that is not external, is an `InvalidArgumentError` at creation.
   * @default none
   */
  external?: Record<string, ExternalAgentHandler>;
  /** Host-supplied prompt sections (artifacts, panels, ...). */
  promptSections?: (PromptSection | PromptSectionSource)[];
  /**
   * Hooks on every turn's lifecycle, at every depth: root turns, sub-tasks, delegated
   * (`agents_message`), background, task and dispatched turns (functions do not travel: each
   * process's runtime has its own). `prepareStep`, `stopWhen`, `beforeToolCall`, `afterToolCall`,
   * and the guardrails `guardInput` (before a turn's first model call: a block stores the turn as
   * `"blocked"` and its message stays out of later turns' context) and `guardOutput` (before the
   * final answer is stored). See {@link RuntimeHooks}. Turns of external agents run no model and
   * no hooks.
   * @default undefined (no hooks)
   */
  hooks?: RuntimeHooks<C>;
  /** Prices per model (turns usage into cost and enables `maxCostUsd`). */
  pricing?: PricingTable;
  /** Per-call time limit for tools without their own. */
  toolTimeoutMs?: number;
  /**
   * Longest chain of nested `agents_message` hops: a whole number from 0 to 64 (delivery and
   * listing follow a chain that far; more is refused by `createAgentRuntime`). @default 3
   */
  maxDelegationDepth?: number;
  /**
   * When a session's estimated context reaches this many tokens, the next turn first resets it:
   * a reset marker with a summary note, then the turn runs on the note and the new message. The
   * last resort: checked after compaction (see `compaction`), so it only applies to a context
   * that compaction could not bring below it.
   * @default 200_000 (EMERGENCY_CONTEXT_LIMIT)
   */
  emergencyContextLimit?: number;
  /**
   * Compaction of long sessions (see {@link CompactionOptions}): before its first model call, a
   * turn whose context (system prompt, tools, history and new message) is estimated at
   * `triggerTokens` or more replaces the session's older turns in the model's context by a summary
   * (the agent's own model writes it, in the turn's budget, unless `summarize` is given), keeping
   * the latest `keepRecentTurns` verbatim. Compaction sits below the other two bounds on a context:
   * `budget.maxHistoryTokens` (128,000: the oldest turns are left out of one request) and
   * `emergencyContextLimit` (200,000: the context is reset to a model-free note). Sub-task levels
   * never compact (they live within one turn, bounded by `maxHistoryTokens`). `false` turns
   * automatic compaction off (`runtime.compact` still works, with the defaults).
   * @default {} (on: triggerTokens 80% of maxHistoryTokens, keepRecentTurns 2, the agent's model)
   */
  compaction?: CompactionOptions | false;
  /**
   * How many sessions' state the runtime keeps between turns. A kept session's next turn loads
   * only the records appended since (`load(sessionId, { afterSeq })`, so records written by other
   * processes are still seen) instead of its whole history. `0` loads every session afresh each turn.
   * @default 256
   */
  sessionCacheSize?: number;
  /**
   * Host roles beside the `planner` and `actor` presets (made with `defineRole`); an agent's
   * `role` may name any of them. A host role with a preset's name replaces the preset.
   * @default none
   */
  roles?: RoleDefinition[];
  /**
   * The one takeover knob: how long a session stays with a process that died (or froze) before
   * another runtime takes it over and repairs it (stores with leases: SQLite, Postgres). The
   * session lease lasts this long unless renewed (`leaseTtlMs` derives from it); a dispatcher has
   * a knob of the same name for its claims and sweep (see `createPgBossDispatcher`). Shorter is
   * faster takeover and more renewals (one write every third of it per session at work).
   * @default 30_000
   */
  takeoverMs?: number;
  /**
   * Overrides how long a session lease lasts before it must be renewed. The runtime renews it
   * every third of this while it works on the session; a runtime that died holding one blocks the
   * session for at most this long. Above `takeoverMs` is refused at creation.
   * @default takeoverMs
   */
  leaseTtlMs?: number;
  /**
   * Longest wait for a session that another runtime (process) holds; then the call rejects with
   * `SessionBusyError`.
   * @default 600_000
   */
  leaseWaitMs?: number;
  /** Background agents one root turn may start, counting those they start in turn. @default 8 */
  maxBackgroundAgents?: number;
  /**
   * Longest chain of agent-to-agent hops (`send_agent_message`, `start_background_agent`) that
   * one root turn may set off; ends ping-pong between two agents. @default 8
   */
  maxAgentHops?: number;
  /**
   * The most events `stream()` holds for a reader that has not read them yet. The turn never
   * waits for its reader; a reader that falls this far behind gets the events queued so far, then
   * a `warning` event with code `stream_overflow` (carrying the `seq` of the first event it missed),
   * and then its stream ends, without `done`. The turn itself goes on and is stored as usual
   * (`send` and `runtime.events` are not affected). A reader that stops reading early is cut off
   * the same way, so an abandoned stream holds at most this many events.
   * @default 10_000
   */
  maxStreamBacklog?: number;
  /**
   * Told of every failure of work that nobody awaits, so none is lost silently: a background
   * agent's failure notice to its parent, a permission notice, an `agents_message` sent with
   * `mode: "async"` or a `send_agent_message` whose turn failed, a task's closing transition, a
   * lease release, and an `event` listener that threw. `info.code` says which. Failures of such
   * work for a session are also published as a `warning` event (same `code`) on
   * `runtime.events`; a listener's own failure is only told here. Must not throw (what it throws
   * is ignored).
   * @default none (the warning events are still published)
   */
  onError?: (error: unknown, info: RuntimeErrorInfo) => void;
}

/** What the runtime tells `onError` along with the error. */
export interface RuntimeErrorInfo {
  /**
   * What failed: `background_notice_failed`, `permission_notice_failed`, `agent_message_failed`,
   * `background_agent_failed`, `task_transition_failed`, `lease_release_failed` or `listener_failed`.
   */
  code: string;
  /** The session the failed work was for, when there is one. */
  sessionId?: string;
}

/** How long a session lease lasts: `leaseTtlMs`, else `takeoverMs`, else 30 s. */
export function leaseTtlOf(options: Pick<AgentRuntimeOptions, "leaseTtlMs" | "takeoverMs">): number {
  return options.leaseTtlMs ?? options.takeoverMs ?? DEFAULT_TAKEOVER_MS;
}

/** `takeoverMs` unless given: how long a dead process's sessions wait before another runtime takes them over. */
export const DEFAULT_TAKEOVER_MS = 30_000;

import { AgentryError, type AgentryErrorOptions } from "./agentry-error.js";

/** A model provider failed: an HTTP error, an error inside a stream, a network failure or a crashed CLI. */
export class ProviderError extends AgentryError {
  static override readonly errorName: string = "ProviderError";
  /** HTTP status when there was one (a CLI provider uses its exit code), else `undefined`. */
  readonly status: number | undefined;
  /** Whether trying the same request again may succeed (429, 5xx, overloaded, network errors). */
  readonly retryable: boolean;
  /** How long the provider asked us to wait before retrying, when it said so. */
  readonly retryAfterMs: number | undefined;
  /** The provider's id, e.g. `"openai"`. */
  readonly provider: string;
  /** The provider's own error type or code when given (e.g. `"overloaded_error"`). */
  readonly errorType: string | undefined;

  constructor(
    message: string,
    init: {
      provider: string;
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
      errorType?: string;
    } & AgentryErrorOptions,
  ) {
    super(message, init);
    this.provider = init.provider;
    this.status = init.status;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
    this.errorType = init.errorType;
  }
}

/**
 * A provider cannot take a part of the request (e.g. a file part it has no way to send: a non-PDF
 * document on Anthropic, a file id where the provider has none). Thrown before anything is sent;
 * never retried. A kind of {@link ProviderError}: the turn ends with status `"error"` naming it.
 */
export class UnsupportedContentError extends ProviderError {
  static override readonly errorName: string = "UnsupportedContentError";
  constructor(message: string, init: { provider: string }) {
    super(message, { provider: init.provider, retryable: false, errorType: "unsupported_content" });
  }
}

/** One problem found in a configuration: where (`path`, dotted) and what. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** Agent configuration is invalid. `problems` lists every problem found, not just the first. */
export class AgentConfigError extends AgentryError {
  static override readonly errorName: string = "AgentConfigError";
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[], options?: AgentryErrorOptions) {
    super(
      `Invalid agent configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n` +
        problems.map((p) => `  - ${p.path || "(root)"}: ${p.message}`).join("\n"),
      options,
    );
    this.problems = problems;
  }
}

/** A host passed options that cannot work (a bad tool name, an invalid budget, ...). */
export class InvalidArgumentError extends AgentryError {
  static override readonly errorName: string = "InvalidArgumentError";
}

/** No agent with this id is registered. */
export class AgentNotFoundError extends AgentryError {
  static override readonly errorName: string = "AgentNotFoundError";
  readonly agentId: string;
  constructor(agentId: string, options?: AgentryErrorOptions) {
    super(`Unknown agent "${agentId}"`, options);
    this.agentId = agentId;
  }
}

/** No session with this id exists (or `"latest"` was asked for an agent with no session). */
export class SessionNotFoundError extends AgentryError {
  static override readonly errorName: string = "SessionNotFoundError";
  readonly sessionId: string | undefined;
  readonly agentId: string | undefined;
  constructor(message: string, init: { sessionId?: string; agentId?: string } & AgentryErrorOptions = {}) {
    super(message, init);
    this.sessionId = init.sessionId;
    this.agentId = init.agentId;
  }
}

/** The session exists but belongs to another agent. */
export class SessionOwnershipError extends AgentryError {
  static override readonly errorName: string = "SessionOwnershipError";
  readonly sessionId: string;
  readonly agentId: string;
  readonly ownerAgentId: string;
  constructor(init: { sessionId: string; agentId: string; ownerAgentId: string } & AgentryErrorOptions) {
    super(`Session "${init.sessionId}" belongs to agent "${init.ownerAgentId}", not "${init.agentId}"`, init);
    this.sessionId = init.sessionId;
    this.agentId = init.agentId;
    this.ownerAgentId = init.ownerAgentId;
  }
}

/** A session store failed (I/O, corrupt data, a database error). */
export class SessionStoreError extends AgentryError {
  static override readonly errorName: string = "SessionStoreError";
}

/** No pending approval with this request id. */
export class ApprovalNotFoundError extends AgentryError {
  static override readonly errorName: string = "ApprovalNotFoundError";
  readonly requestId: string;
  constructor(requestId: string, options?: AgentryErrorOptions) {
    super(`No approval request "${requestId}"`, options);
    this.requestId = requestId;
  }
}

/** The approval was already decided; a decision is applied once. */
export class ApprovalAlreadyResolvedError extends AgentryError {
  static override readonly errorName: string = "ApprovalAlreadyResolvedError";
  readonly requestId: string;
  constructor(requestId: string, options?: AgentryErrorOptions) {
    super(`Approval request "${requestId}" was already resolved`, options);
    this.requestId = requestId;
  }
}

/**
 * A decision on a request that a newer message superseded (`SendInput.ifPending: "supersede"`,
 * or a message sent while it was pending under an older version): the request was denied with
 * reason `"superseded"`, and nothing ran. A kind of {@link ApprovalAlreadyResolvedError}.
 */
export class ApprovalSupersededError extends ApprovalAlreadyResolvedError {
  static override readonly errorName: string = "ApprovalSupersededError";
  constructor(requestId: string, options?: AgentryErrorOptions) {
    super(requestId, options);
    this.message = `Approval request "${requestId}" was superseded by a newer message: it was denied and its call did not run`;
  }
}

/**
 * `send` with `ifPending: "reject"` found the session waiting for a decision (an approval or a
 * question, its own or one of an agent it waits on): nothing was stored.
 */
export class PendingDecisionError extends AgentryError {
  static override readonly errorName: string = "PendingDecisionError";
  readonly sessionId: string;
  /** The ids of the pending requests (`resolveApproval` / `answerQuestion` take them). */
  readonly requestIds: string[];
  constructor(sessionId: string, requestIds: string[], options?: AgentryErrorOptions) {
    super(
      `Session "${sessionId}" is waiting for a decision (${requestIds.join(", ")}); decide it first, or send with ifPending "queue" or "supersede"`,
      options,
    );
    this.sessionId = sessionId;
    this.requestIds = requestIds;
  }
}

/**
 * A session lease holder tried to write after losing its lease (it expired and another runtime
 * took the session): the write was refused, nothing was stored. The fencing that keeps two
 * processes from interleaving one session's records.
 */
export class LeaseLostError extends AgentryError {
  static override readonly errorName: string = "LeaseLostError";
  readonly sessionId: string;
  /** The token the writer held. */
  readonly leaseToken: number;
  constructor(sessionId: string, leaseToken: number, options?: AgentryErrorOptions) {
    super(
      `The lease on session "${sessionId}" (token ${leaseToken}) was lost: another runtime holds the session now`,
      options,
    );
    this.sessionId = sessionId;
    this.leaseToken = leaseToken;
  }
}

/**
 * The session is busy: another runtime kept it longer than this runtime was willing to wait for it,
 * or (with no `waitedMs`) a call that does not wait found a turn of it running, in this process or
 * another, or (`runId` set) a message sent with `ifBusy: "reject"` found turn `runId` running.
 */
export class SessionBusyError extends AgentryError {
  static override readonly errorName: string = "SessionBusyError";
  readonly sessionId: string;
  /** The turn that was running, when a message sent with `ifBusy: "reject"` was refused. */
  readonly runId: string | undefined;
  constructor(sessionId: string, waitedMs?: number, options?: AgentryErrorOptions & { runId?: string }) {
    super(
      options?.runId !== undefined
        ? `Session "${sessionId}" is running turn "${options.runId}"; the message was not stored (ifBusy: "reject")`
        : waitedMs === undefined
          ? `Session "${sessionId}" has a turn running (in this process or another); try again once it ended`
          : `Session "${sessionId}" is held by another runtime; gave up after waiting ${waitedMs} ms`,
      options,
    );
    this.sessionId = sessionId;
    this.runId = options?.runId;
  }
}

/**
 * An MCP server could not be reached or used: its command was not found, it exited during start,
 * it did not answer the handshake in time, or its URL refused the connection.
 */
export class McpConnectionError extends AgentryError {
  static override readonly errorName: string = "McpConnectionError";
  /** The connection's name (`connectMcpServer({ name })`). */
  readonly server: string;
  /** The command (stdio) or URL (streamable HTTP) that was tried. */
  readonly target: string;
  constructor(message: string, init: { server: string; target: string } & AgentryErrorOptions) {
    super(message, init);
    this.server = init.server;
    this.target = init.target;
  }
}

/**
 * An MCP server refused or failed a request the host made on a connection (`readResource`,
 * `getPrompt`, `listResources`, `listPrompts`): an unknown resource or prompt, a server without
 * that capability, a timeout, or an answer that is not valid. `code` is the JSON-RPC error code when
 * the server sent one (e.g. -32602 invalid params, -32601 method not found, -32001 request timeout).
 */
export class McpRequestError extends AgentryError {
  static override readonly errorName: string = "McpRequestError";
  /** The connection's name (`connectMcpServer({ name })`). */
  readonly server: string;
  /** The protocol method, e.g. `"resources/read"`. */
  readonly method: string;
  /** The JSON-RPC error code, when the server (or the SDK for a timeout) gave one. */
  readonly code: number | undefined;
  constructor(message: string, init: { server: string; method: string; code?: number } & AgentryErrorOptions) {
    super(message, init);
    this.server = init.server;
    this.method = init.method;
    this.code = init.code;
  }
}

/**
 * A dispatched piece of work (a turn or a decision run by a worker process) failed there with an
 * error this process cannot rebuild as its own class: `remoteName` is that error's `name`.
 */
export class DispatchError extends AgentryError {
  static override readonly errorName: string = "DispatchError";
  readonly remoteName: string;
  constructor(message: string, init: { remoteName?: string } & AgentryErrorOptions = {}) {
    super(message, init);
    this.remoteName = init.remoteName ?? "Error";
  }
}

/**
 * The command sandbox asked for (`createWorkspaceTools({ sandbox })`) cannot work here: not Linux,
 * `unshare` / `setpriv` missing, or the kernel refused the namespaces (e.g. unprivileged user
 * namespaces disabled). Thrown when the tools are created, never at a command's first call.
 */
export class SandboxUnavailableError extends AgentryError {
  static override readonly errorName: string = "SandboxUnavailableError";
}

import { InvalidArgumentError } from "../errors/errors.js";
import type { Message, UserMessage } from "../contracts/message.js";
import type { ToolPolicy } from "../contracts/tool-policy.js";
import type { ModelRequest, PricingTable, Provider } from "../contracts/provider.js";
import type { Tool, InferToolInput } from "../contracts/tool.js";
import type { JsonSchema, AnyZodSchema } from "../contracts/json-schema.js";
import { isZodSchema, toJsonSchema } from "../schema/to-json-schema.js";
import { unresolvedRefs } from "../schema/unresolved-refs.js";
import { createJsonSchemaValidator, createZodValidator, type ValueValidator } from "../schema/validate.js";
import { TurnBudget } from "./budget.js";
import type { BudgetLimits } from "../contracts/budget.js";
import { EventSink } from "./event-sink.js";
import { SignalHub } from "./signal-hub.js";
import { ExecutionTree } from "./execution-tree.js";
import type { Level, StartingCall, Turn } from "./level.js";
import type { ModelCallInfo } from "./call-model.js";
import type { LoopEvent } from "../contracts/loop-event.js";
import type { ApprovalHandler, LoopResult, ResumeState } from "../contracts/loop-result.js";
import { modelToolsFor, offersSubtaskAt, runLevel } from "./run-level.js";
import { usageOf } from "./usage-of.js";
import {
  buildSubtaskSystemPrompt,
  FINAL_ANSWER,
  FINISH_SUBTASK,
  RUN_SUBTASK,
  type SubtaskPromptInfo,
} from "./subtask-tools.js";
import { agentScopeKeeps } from "../internal/toolbelt-scope.js";
import { errorMessage } from "./tool-result.js";
import { isTimeLimit, timerDelay } from "../internal/timer-delay.js";
import { toolPermissionClasses } from "../tools/permission-classes.js";
import type { RuntimeHooks } from "../contracts/hooks.js";
import { hookProblems, turnInfo } from "./turn-hooks.js";

/** Stream ids unique across turns: one random prefix per turn, then a counter. */
function createStreamIds(): () => string {
  const prefix = globalThis.crypto.randomUUID().slice(0, 8);
  let count = 0;
  return () => `stream_${prefix}_${++count}`;
}

/** Options of {@link runUnifiedAgentLoop}. `S` is the type of `outputSchema`. */
export interface LoopOptions<S extends AnyZodSchema | JsonSchema = AnyZodSchema | JsonSchema> {
  provider: Provider;
  model: string;
  systemPrompt: string;
  /** The conversation so far. Not mutated. */
  history: Message[];
  /**
   * The already-composed toolbelt. `run_subtask`/`finish_subtask` are added by the loop, unless
   * this is an array `composeToolbelt` made for an agent whose tool lists leave them out.
   */
  tools: Tool[];
  /** Limits, or a `TurnBudget` shared by several loops. @default DEFAULT_BUDGET */
  budget?: Partial<BudgetLimits> | TurnBudget;
  /** @default 0 */
  depth?: number;
  /** `toolCallId` of the enclosing `run_subtask`. @default null */
  parentId?: string | null;
  signal?: AbortSignal;
  /** Decides approvals (told where each call was made). Without one, a call that needs approval suspends the run. */
  approve?: ApprovalHandler<any>;
  /** When given, enforced again at dispatch and used for approval rules. */
  policy?: ToolPolicy;
  /**
   * The host's data for this turn: handed to tools as `ctx.context` (and, as before, `ctx.host`),
   * and to `approve` as `info.context`.
   */
  context?: unknown;
  /** Handed to tools as `ctx.scope` and to `approve` as `info.scope`. */
  scope?: string;
  /**
   * Handed to tools as `ctx.runId` and to the provider as `request.caller.runId` (when given), and
   * part of every call's `ctx.callKey`.
   * @default a new UUID per call of the loop
   */
  runId?: string;
  /** Continue a suspended turn (pass the suspended result's `resume` plus decisions). */
  resume?: ResumeState;
  /** Prices per model; turns usage into `costUsd` and enables `maxCostUsd`. */
  pricing?: PricingTable;
  /**
   * Per-call time limit for tools without their own `timeoutMs`, in ms. Unset, `Infinity` or
   * above 2^31-1 = none; negative or NaN throws `InvalidArgumentError`.
   */
  toolTimeoutMs?: number;
  /** Passed to tools as `ctx.sessionId` and to the provider as `request.caller.sessionId`. */
  sessionId?: string;
  /** Passed to tools as `ctx.agentId` and to the provider as `request.caller.agentId`. */
  agentId?: string;
  /** Extra request fields for every model call. */
  modelOptions?: Pick<ModelRequest, "maxOutputTokens" | "temperature" | "providerOptions">;
  /** Replaces the built-in sub-task system prompt. */
  subtaskSystemPrompt?: (info: SubtaskPromptInfo) => string;
  /**
   * Root structured output: a zod schema (3.25+ or 4) or a JSON Schema. The loop then offers a
   * `final_answer` tool taking `{ result }`; the model must end through it (a plain-text answer
   * gets a reminder and another iteration), a result that does not match goes back to the model
   * as an error result to fix, and the accepted value is `result.structured` (zod: parsed, so
   * transforms and defaults apply; typed from the schema). Retries are bounded by
   * `maxIterationsPerLevel` and the turn's budget. Host input: trusted like a tool's schema; a
   * JSON Schema the validator cannot use throws `InvalidArgumentError`. Applies at the level the
   * loop is called for, not to sub-tasks. @default undefined (the model ends with text)
   */
  outputSchema?: S;
  /**
   * Hooks on the turn's lifecycle (see {@link RuntimeHooks}): shape each model call
   * (`prepareStep`), stop a level (`stopWhen`), block or rewrite a tool call (`beforeToolCall`,
   * `afterToolCall`), refuse the input before any model call (`guardInput`, when the history ends
   * with a user message and the run is not a resume) or replace / refuse the final answer
   * (`guardOutput`). They run at every depth of the run (sub-tasks included); the guards apply to
   * the level the loop is called for. A hook that throws ends the run `error`, naming it.
   * @default undefined (no hooks)
   */
  hooks?: RuntimeHooks<any>;
}

/** `result.structured` as typed by an output schema: zod's output type, `unknown` for JSON Schema. */
export type InferStructured<S> = InferToolInput<S>;

/** The root finish tool's validator and model-facing schema; throws for an unusable schema. */
function outputOf(schema: AnyZodSchema | JsonSchema): { json: JsonSchema; validator: ValueValidator } {
  try {
    if (isZodSchema(schema)) {
      const json = toJsonSchema(schema);
      return { json, validator: createZodValidator(schema, json) };
    }
    const dangling = unresolvedRefs(schema);
    if (dangling.length > 0)
      throw new Error(`$ref that resolves to nothing: ${dangling.map((r) => JSON.stringify(r)).join(", ")}`);
    return { json: schema, validator: createJsonSchemaValidator(schema) };
  } catch (error) {
    throw new InvalidArgumentError(`runUnifiedAgentLoop: outputSchema cannot be used: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

/**
 * The tool-call ids a turn already used: none for a new turn; for a resumed one, those of its
 * open sub-task frames and of the root history since its last user message.
 */
function callIdsOf(options: LoopOptions): Set<string> {
  const ids = new Set<string>();
  if (!options.resume) return ids;
  const add = (message: Message) => {
    if (message.role === "assistant")
      for (const part of message.content) if (part.type === "tool_call") ids.add(part.id);
  };
  for (const frame of Object.values(options.resume.frames)) frame.forEach(add);
  const history = options.history;
  for (let i = history.length - 1; i >= 0 && history[i]!.role !== "user"; i--) add(history[i]!);
  return ids;
}

function checkOptions(options: LoopOptions): void {
  const problems: string[] = [];
  if (!options || typeof options !== "object")
    throw new InvalidArgumentError("runUnifiedAgentLoop: options object required");
  if (!options.provider || typeof options.provider.stream !== "function")
    problems.push("provider must have a stream() method");
  if (typeof options.model !== "string") problems.push("model must be a string");
  if (typeof options.systemPrompt !== "string") problems.push("systemPrompt must be a string");
  if (!Array.isArray(options.history)) problems.push("history must be an array of messages");
  if (!Array.isArray(options.tools)) problems.push("tools must be an array");
  else {
    const seen = new Set<string>();
    for (const tool of options.tools) {
      if (!tool || typeof tool.name !== "string" || (tool.execute !== undefined && typeof tool.execute !== "function"))
        problems.push("every tool needs a name, and an execute() unless it runs in the client");
      else if (seen.has(tool.name)) problems.push(`duplicate tool name "${tool.name}"`);
      else if (options.outputSchema !== undefined && tool.name === FINAL_ANSWER)
        problems.push(`tool name "${FINAL_ANSWER}" is reserved when outputSchema is given`);
      else seen.add(tool.name);
      if (tool?.timeoutMs !== undefined && !isTimeLimit(tool.timeoutMs)) {
        problems.push(
          `tool "${String(tool.name)}": timeoutMs must be a number of 0 or more (Infinity = no limit), got ${String(tool.timeoutMs)}`,
        );
      }
    }
  }
  if (options.toolTimeoutMs !== undefined && !isTimeLimit(options.toolTimeoutMs)) {
    problems.push(
      `toolTimeoutMs must be a number of 0 or more (Infinity = no limit), got ${String(options.toolTimeoutMs)}`,
    );
  }
  const schema = options.outputSchema as unknown;
  if (schema !== undefined && (schema === null || typeof schema !== "object" || Array.isArray(schema)))
    problems.push("outputSchema must be a zod schema or a JSON Schema object");
  problems.push(...hookProblems(options.hooks, "hooks"));
  if (problems.length > 0) throw new InvalidArgumentError(`runUnifiedAgentLoop: ${problems.join("; ")}`);
}

/**
 * The unified agent loop: one async generator used at every depth. It streams a model
 * turn, runs the tool calls it asks for (in parallel where safe, under approval, budgets, locks
 * and timeouts), recurses into `run_subtask` calls, and repeats until the model answers without tools.
 *
 * Yields {@link LoopEvent}s (each with `depth` and `parentId`); the last one is `done`. Returns the
 * same {@link LoopResult}. Expected failures (provider errors, budgets, aborts) are events and a
 * status, never exceptions; invalid options throw `InvalidArgumentError` on the first `next()`.
 *
 * A level does not go on past a `message` event until the consumer has pulled it, so a host that
 * stores messages as it reads them has them stored before any tool of that message runs.
 *
 * @example
 * for await (const event of runUnifiedAgentLoop({ provider, model: "gpt-4o", systemPrompt: "Be brief.",
 *   history: [{ role: "user", content: "What is 2 + 3?" }], tools: [add] })) {
 *   if (event.type === "chunk") process.stdout.write(event.content);
 * }
 */
export function runUnifiedAgentLoop<S extends AnyZodSchema | JsonSchema = JsonSchema>(
  options: LoopOptions<S>,
): AsyncGenerator<LoopEvent, LoopResult<InferStructured<S>>> {
  return runLoop(options, {});
}

/** What the runtime hands the loop beside the public options. Internal: not exported from the package. */
export interface LoopInternals {
  /**
   * `estimateTokens` of `options.history` (system prompt excluded), when the caller keeps a running
   * sum already: the loop then need not walk a long history to start its own.
   * @default undefined (the loop estimates the history itself)
   */
  historyTokens?: number;
  /** What the runtime's own tools find as `ctx[RUNTIME_HOST]`. */
  runtimeHost?: unknown;
  /**
   * Prefix of the calls' `ctx.callKey`: the same for a turn and its resumptions, so a call keeps
   * its key across an approval. @default `<sessionId>:<runId>`
   */
  callKeyPrefix?: string;
  /**
   * Awaited before every tool call (and sub-task) starts, after its approval and budget checks
   * and once its lock is held: the runtime stores the call's start there (fenced by its session
   * lease) and aborts the turn when the lease is lost. The call runs only when this resolves and
   * the turn is not aborted by then; a rejection leaves it unrun (an error result naming the
   * reason). Must not throw synchronously.
   * @default undefined (calls start at once)
   */
  beforeToolCall?: (call: StartingCall) => Promise<void>;
  /** What tools see as `ctx.leaseToken`. @default undefined */
  leaseToken?: number;
  /** The session's role for the turn, for `ModelRequest.caller.role`. @default undefined */
  role?: string;
  /**
   * Called once per model call, at any depth, when its response is complete and before its
   * assistant message is emitted: the runtime stores the call (what the model saw, duration,
   * usage) with that message. Synchronous; must not throw.
   * @default undefined
   */
  onModelCall?: (call: ModelCallInfo) => void;
  /**
   * Awaited at every step boundary of every level (after a tool batch, before the next model
   * call): the runtime looks here for a stop request and for messages steered into the turn. A
   * stop aborts the turn's signal; the messages returned are taken only by the entry level
   * (`root: true`) and added to its conversation, each with a `message_steered` event the loop
   * waits on (the runtime stores it). Must not throw.
   * @default undefined (no boundary checks)
   */
  stepBoundary?: (root: boolean) => Promise<readonly SteeredMessage[]>;
}

/** A user message steered into a running turn (see `LoopInternals.stepBoundary`). */
export interface SteeredMessage {
  message: UserMessage;
  /** The id its stored `message` record gets (on its `message_steered` event). */
  messageId: string;
}

/** The turn's part of `ModelRequest.caller`: only what the host gave (a default run id is not "known"). */
function callerOf(options: LoopOptions, internals: LoopInternals): Turn["caller"] {
  const caller: Turn["caller"] = {};
  if (options.agentId !== undefined) caller.agentId = options.agentId;
  if (options.sessionId !== undefined) caller.sessionId = options.sessionId;
  if (options.runId !== undefined) caller.runId = options.runId;
  if (internals.role !== undefined) caller.role = internals.role;
  return caller;
}

/**
 * The turn's wall-clock timer: at the limit, the budget fails and the turn aborts. None when no timer can wait that
 * long (no limit).
 */
function armDeadline(budget: TurnBudget, controller: AbortController): ReturnType<typeof setTimeout> | undefined {
  // A wall clock no timer can wait (Infinity, over 2^31-1 ms) is no limit, never "spent at once".
  const wait = timerDelay(Math.max(0, budget.remainingMs()));
  if (wait === undefined) return undefined;
  const deadline = setTimeout(() => {
    budget.fail("wall_clock", budget.limits.maxWallClockMs, Date.now() - budget.startedAt);
    controller.abort(new Error("wall-clock budget spent"));
  }, wait);
  (deadline as { unref?: () => void }).unref?.();
  return deadline;
}

/** What every level of one run shares, made from the loop's options. */
function createTurn(
  options: LoopOptions,
  internals: LoopInternals,
  budget: TurnBudget,
  controller: AbortController,
): Turn {
  const signal = controller.signal;
  const policy = options.policy;
  const runId = options.runId ?? globalThis.crypto.randomUUID();
  return {
    provider: options.provider,
    model: options.model,
    budget,
    tree: new ExecutionTree(),
    signal,
    sink: new EventSink(),
    signals: new SignalHub(signal),
    approve: options.approve,
    policy,
    loopTools: {
      runSubtask: agentScopeKeeps(options.tools, RUN_SUBTASK),
      finishSubtask: agentScopeKeeps(options.tools, FINISH_SUBTASK),
    },
    toolPolicy: policy ?? {
      classes: [...new Set(["subagent", ...options.tools.flatMap((t) => toolPermissionClasses(t))])],
      workspaceRoot: null,
      allowedMcpServers: [],
    },
    host: options.context,
    context: options.context,
    scope: options.scope,
    runId,
    callKeyPrefix: internals.callKeyPrefix ?? `${options.sessionId ?? ""}:${runId}`,
    runtimeHost: internals.runtimeHost,
    beforeToolCall: internals.beforeToolCall,
    leaseToken: internals.leaseToken,
    pricing: options.pricing,
    resume: options.resume,
    sessionId: options.sessionId,
    agentId: options.agentId,
    toolTimeoutMs: options.toolTimeoutMs,
    request: options.modelOptions ?? {},
    hasRequestOptions: options.modelOptions !== undefined && Object.keys(options.modelOptions).length > 0,
    caller: callerOf(options, internals),
    subtaskPrompt: options.subtaskSystemPrompt ?? buildSubtaskSystemPrompt,
    streamIds: createStreamIds(),
    callIds: callIdsOf(options),
    onModelCall: internals.onModelCall,
    stepBoundary: internals.stepBoundary,
    hooks: options.hooks,
    hookFailure: undefined,
    info: turnInfo({
      agentId: options.agentId,
      sessionId: options.sessionId,
      scope: options.scope,
      runId,
      context: options.context,
    }),
    abort: (reason) => controller.abort(reason),
  };
}

/** {@link runUnifiedAgentLoop} with the runtime's internal options. */
export function runLoop<S extends AnyZodSchema | JsonSchema = JsonSchema>(
  options: LoopOptions<S>,
  internals: LoopInternals,
): AsyncGenerator<LoopEvent, LoopResult<InferStructured<S>>> {
  const loop = drive(options, internals) as AsyncGenerator<LoopEvent, LoopResult<InferStructured<S>>>;
  // `await using run = runUnifiedAgentLoop(...)`: native async generators have `[Symbol.asyncDispose]`
  // only where the runtime ships explicit resource management (not Node 20); give it the same meaning.
  const asyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
  const disposable: object = loop;
  if (typeof asyncDispose === "symbol" && !(asyncDispose in disposable)) {
    Object.defineProperty(disposable, asyncDispose, {
      value: async () => void (await loop.return(undefined as never)),
    });
  }
  return loop;
}

/**
 * The loop's generator: checks the options and starts the entry level (at the first `next()`),
 * then hands over the levels' events in order. An awaited event (`message`) is acknowledged when
 * the consumer asks for the next one; a consumer that leaves early (`return()`, `throw()`, a
 * `break`) stops the running tools and the provider call.
 */
async function* drive(options: LoopOptions, internals: LoopInternals): AsyncGenerator<LoopEvent, LoopResult> {
  const run = startLoop(options, internals);
  let ack: (() => void) | undefined;
  let ended = false;
  try {
    const { sink } = run;
    for (;;) {
      // Events already queued are handed over without waiting; the wait is only for an empty queue.
      const item = sink.take();
      if (item === undefined) {
        if (sink.finished) break;
        await sink.wait();
        continue;
      }
      ack = item.ack;
      yield item.event;
      ack?.();
      ack = undefined;
    }
    const { events, result } = await run.ended;
    ended = true;
    for (const event of events) yield event;
    return result;
  } finally {
    ack?.();
    run.stop(!ended);
  }
}

/** A started loop, as its generator drives it. */
interface StartedLoop {
  sink: EventSink;
  /** Once every level has finished: the events after the levels' own (an internal error, then `done`) and the result. */
  ended: Promise<{ events: LoopEvent[]; result: LoopResult }>;
  /** Called once when the generator stops: `early` when the consumer left before the last event. */
  stop(early: boolean): void;
}

/** Checks the options, then starts the entry level. */
function startLoop(options: LoopOptions, internals: LoopInternals): StartedLoop {
  checkOptions(options);
  const output = options.outputSchema === undefined ? undefined : outputOf(options.outputSchema);
  const budget = TurnBudget.isTurnBudget(options.budget) ? options.budget : new TurnBudget(options.budget ?? {});
  const controller = new AbortController();
  const outer = options.signal;
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onOuterAbort, { once: true });
  const deadline = armDeadline(budget, controller);

  const turn = createTurn(options, internals, budget, controller);
  const { sink } = turn;
  const depth = options.depth ?? 0;
  const parentId = options.parentId ?? null;
  const level: Level = {
    turn,
    entry: true,
    depth,
    parentId,
    systemPrompt: options.systemPrompt,
    tools: new Map(options.tools.map((t) => [t.name, t])),
    modelTools: [],
    offersSubtask: false,
    outputSchema: output?.json,
    outputValidator: output?.validator,
    ...(output && { finishName: FINAL_ANSWER }),
  };
  level.offersSubtask = offersSubtaskAt(level, depth);
  level.modelTools = modelToolsFor(level);

  const release = () => {
    if (deadline !== undefined) clearTimeout(deadline);
    outer?.removeEventListener("abort", onOuterAbort);
  };
  const ended = runLevel(level, options.history.slice(), [], internals.historyTokens).then(
    ({ result }) => ({ events: [{ type: "done" as const, result, depth, parentId }], result }),
    (error: unknown) => {
      // Only a bug (ours, or a provider's that escaped) gets here; report it like any failure.
      const message = `Internal error: ${errorMessage(error)}`;
      const result: LoopResult = {
        status: "error",
        text: "",
        messages: [],
        executionTree: turn.tree.snapshot(),
        usage: usageOf(budget, turn.pricing !== undefined),
        error: { message },
      };
      const events: LoopEvent[] = [
        { type: "error", message, depth, parentId },
        { type: "done", result, depth, parentId },
      ];
      return { events, result };
    },
  );
  void ended.finally(() => {
    release();
    sink.end();
  });
  return {
    sink,
    ended,
    stop: (early) => {
      release();
      if (early) {
        // The consumer left: stop running tools and the provider call, release waiting levels.
        controller.abort(new Error("the consumer stopped reading the loop"));
        sink.close();
      }
    },
  };
}

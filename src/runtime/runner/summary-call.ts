import type { CompactionResult } from "../../contracts/compaction.js";
import type { Message } from "../../contracts/message.js";
import type { ModelCaller, ModelRequest, PricingTable } from "../../contracts/provider.js";
import {
  boundedSummary,
  COMPACTION_SUMMARY_MAX_CHARS,
  COMPACTION_SYSTEM_PROMPT,
  compactionRequestText,
} from "../../context/compaction-prompt.js";
import type { TurnBudget } from "../../loop/budget.js";
import { MAX_TOKENS_PER_RESPONSE } from "../../loop/call-model.js";
import { computeCostUsd } from "../../providers/pricing.js";
import { timerDelay } from "../../internal/timer-delay.js";
import type { PreparedAgent } from "../agents/prepare-agent.js";
import { fallbackSummary, type CompactionSettings, type WrittenSummary } from "./compact-context.js";

/** Output tokens the default summary call asks for at most (the agent's own limit when lower). */
export const SUMMARY_MAX_OUTPUT_TOKENS = 8_000;
/** Longest reason of a failure told in the `compaction_failed` warning. */
const FAILURE_CHARS = 300;

/** What {@link writeSummary} takes. */
export interface SummaryRequest {
  messages: Message[];
  settings: CompactionSettings;
  caller: Omit<ModelCaller, "depth" | "parentId" | "purpose">;
  scope?: string;
  instructions?: string;
  prepared: Pick<PreparedAgent, "provider" | "model" | "modelOptions">;
  /** An agent answered by a host handler has no model to write a summary: the note stands in. */
  external: boolean;
  /** Where the summary call is counted (the turn's, for a compaction before a turn). */
  budget: TurnBudget;
  /** Model calls that must stay possible after the summary's (1 before a turn's first model call). */
  reserveCalls: number;
  pricing: PricingTable | undefined;
  signal: AbortSignal | undefined;
}

/**
 * Writes a compaction's summary: the host's `summarize`, else one call to the agent's own provider
 * and model with the fixed summary prompt, counted in `budget` (calls, tokens, cost). Never
 * throws: a failure (a throw, a provider error, no answer within the timeout, no room in the
 * budget, an empty summary) gives the model-free note with `failure` saying why. The summary is
 * outside input: bounded to `COMPACTION_SUMMARY_MAX_CHARS`.
 */
export async function writeSummary(request: SummaryRequest): Promise<WrittenSummary> {
  const wait = Math.max(0, Math.min(request.settings.timeoutMs, request.budget.remainingMs()));
  const timeout = new AbortController();
  const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
  const delay = timerDelay(wait);
  const timer = delay === undefined ? undefined : setTimeout(() => timeout.abort(new Error("timed out")), delay);
  (timer as { unref?: () => void } | undefined)?.unref?.();
  // A host or provider that does not stop on the signal is left behind: the turn goes on.
  const stopped = new Promise<Attempt>((resolve) => {
    if (signal.aborted) resolve({ error: "aborted" });
    else signal.addEventListener("abort", () => resolve({ error: "aborted" }), { once: true });
  });
  const calls = { made: 0 };
  let attempt: Attempt;
  try {
    attempt = await Promise.race([attemptSummary(request, signal, calls), stopped]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  const aborted = request.signal?.aborted === true;
  const summary = attempt.error === undefined ? boundedSummary(attempt.text) : undefined;
  const written: WrittenSummary = {
    summary: summary ?? fallbackSummary(request.messages),
    source: summary === undefined ? "fallback" : request.settings.summarize ? "host" : "model",
    llmCalls: calls.made,
    aborted,
  };
  if (summary === undefined) {
    const why =
      attempt.error === "aborted" && timeout.signal.aborted && !aborted
        ? `no answer within ${Math.round(wait)} ms`
        : (attempt.error ?? "the summary was empty");
    written.failure = why.length > FAILURE_CHARS ? `${why.slice(0, FAILURE_CHARS - 1)}…` : why;
  }
  if (attempt.usage) written.usage = attempt.usage;
  return written;
}

/** One try at a summary: its text, or why there is none. */
interface Attempt {
  text?: unknown;
  error?: string;
  usage?: CompactionResult["usage"];
}

async function attemptSummary(request: SummaryRequest, signal: AbortSignal, calls: { made: number }): Promise<Attempt> {
  const { settings, messages } = request;
  if (settings.summarize) {
    try {
      const input = { messages: messages.slice(), agentId: request.caller.agentId ?? "", signal };
      return {
        text: await settings.summarize({
          ...input,
          ...(request.scope !== undefined && { scope: request.scope }),
          ...(request.instructions !== undefined && { instructions: request.instructions }),
        }),
      };
    } catch (error) {
      return { error: `summarize threw: ${errorText(error)}` };
    }
  }
  if (request.external) return { error: "the agent is answered by a host handler, which has no model to write it" };
  if (!request.budget.roomForLlmCalls(1 + request.reserveCalls))
    return { error: "the turn's budget has no room for the summary call" };
  if (request.budget.tryLlmCall()) return { error: "the turn's budget has no room for the summary call" };
  calls.made++;
  return modelSummary(request, signal);
}

/** The default summary: one streamed call to the agent's own model, its text bounded as it arrives. */
async function modelSummary(request: SummaryRequest, signal: AbortSignal): Promise<Attempt> {
  const { prepared, budget } = request;
  const options = prepared.modelOptions;
  const body: ModelRequest = {
    model: prepared.model,
    system: COMPACTION_SYSTEM_PROMPT,
    messages: [{ role: "user", content: compactionRequestText(request.messages, request.instructions) }],
    tools: [],
    maxOutputTokens: Math.min(options.maxOutputTokens ?? SUMMARY_MAX_OUTPUT_TOKENS, SUMMARY_MAX_OUTPUT_TOKENS),
    caller: { ...request.caller, depth: 0, parentId: null, purpose: "compaction" },
  };
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.providerOptions !== undefined) body.providerOptions = options.providerOptions;
  const pieces: string[] = [];
  let chars = 0;
  let reported: { inputTokens: unknown; outputTokens: unknown; cachedInputTokens?: unknown } | undefined;
  let error: string | undefined;
  try {
    for await (const event of prepared.provider.stream(body, { signal })) {
      if (event.type === "usage") reported = event;
      else if (event.type === "text_delta" && typeof event.text === "string") {
        pieces.push(event.text);
        chars += event.text.length;
        // What is past the bound is cut anyway: stop reading a summary that does not end.
        if (chars > COMPACTION_SUMMARY_MAX_CHARS * 2) break;
      }
    }
  } catch (thrown) {
    error = signal.aborted ? "aborted" : `the model call failed: ${errorText(thrown)}`;
  }
  const usage = reported ? countUsage(budget, request.pricing?.[prepared.model], reported) : undefined;
  const attempt: Attempt = {};
  if (usage) attempt.usage = usage;
  if (error !== undefined) attempt.error = error;
  else attempt.text = pieces.join("");
  return attempt;
}

/** A reported usage made sane (whole tokens, bounded) and counted in the budget; returns it with its cost. */
function countUsage(
  budget: TurnBudget,
  pricing: Parameters<typeof computeCostUsd>[0] | undefined,
  reported: { inputTokens: unknown; outputTokens: unknown; cachedInputTokens?: unknown },
): NonNullable<CompactionResult["usage"]> {
  const tokens = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value)
      ? Math.min(MAX_TOKENS_PER_RESPONSE, Math.max(0, Math.round(value)))
      : 0;
  const inputTokens = tokens(reported.inputTokens);
  const outputTokens = tokens(reported.outputTokens);
  const cachedInputTokens = Math.min(tokens(reported.cachedInputTokens), inputTokens);
  const costUsd = pricing ? computeCostUsd(pricing, { inputTokens, outputTokens, cachedInputTokens }) : undefined;
  budget.addUsage(inputTokens, outputTokens, cachedInputTokens, costUsd ?? 0);
  return { inputTokens, outputTokens, ...(costUsd !== undefined && { costUsd }) };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Attribute names from the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/), plus Agentry's own under `agentry.*`.
 * Written out rather than imported from `@opentelemetry/semantic-conventions`: the GenAI names are
 * still "incubating" there, and this keeps the peer list to `@opentelemetry/api`.
 */
export const ATTR = {
  operationName: "gen_ai.operation.name",
  conversationId: "gen_ai.conversation.id",
  agentId: "gen_ai.agent.id",
  agentName: "gen_ai.agent.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  requestTemperature: "gen_ai.request.temperature",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestStream: "gen_ai.request.stream",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  usageReasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
  runId: "agentry.run.id",
  depth: "agentry.depth",
  parentToolCallId: "agentry.parent_tool_call.id",
  iteration: "agentry.iteration",
  turnStatus: "agentry.turn.status",
  llmCalls: "agentry.usage.llm_calls",
  toolCalls: "agentry.usage.tool_calls",
  costUsd: "agentry.usage.cost_usd",
  budgetReason: "agentry.budget.reason",
  budgetLimit: "agentry.budget.limit",
  budgetObserved: "agentry.budget.observed",
  toolSuspended: "agentry.tool.suspended",
  guardrailGuard: "agentry.guardrail.guard",
  delegatedRunId: "agentry.delegation.run_id",
  delegatedSessionId: "agentry.delegation.session_id",
} as const;

/**
 * Values of the GenAI semantic conventions' enumerated attributes, as Agentry derives them.
 * Written out, like the attribute names, so `@agentry/core/otel` needs only `@opentelemetry/api`.
 */

/** The conventions' fallback `error.type` when nothing more specific is known. */
export const OTHER_ERROR = "_OTHER";

/**
 * Provider ids (Agentry's adapters, the AI SDK's `model.provider` prefixes, common names) mapped
 * to the conventions' well-known `gen_ai.provider.name` values. Keys are lower case.
 */
export const WELL_KNOWN_PROVIDER_NAMES: ReadonlyMap<string, string> = new Map([
  ["openai", "openai"],
  ["anthropic", "anthropic"],
  ["aws.bedrock", "aws.bedrock"],
  ["amazon-bedrock", "aws.bedrock"],
  ["bedrock", "aws.bedrock"],
  ["azure.ai.openai", "azure.ai.openai"],
  ["azure", "azure.ai.openai"],
  ["azure-openai", "azure.ai.openai"],
  ["azure.ai.inference", "azure.ai.inference"],
  ["gcp.gemini", "gcp.gemini"],
  ["gemini", "gcp.gemini"],
  ["google", "gcp.gemini"],
  ["google.generative-ai", "gcp.gemini"],
  ["gcp.vertex_ai", "gcp.vertex_ai"],
  ["vertex", "gcp.vertex_ai"],
  ["google.vertex", "gcp.vertex_ai"],
  ["gcp.gen_ai", "gcp.gen_ai"],
  ["cohere", "cohere"],
  ["deepseek", "deepseek"],
  ["groq", "groq"],
  ["perplexity", "perplexity"],
  ["mistral", "mistral_ai"],
  ["mistral_ai", "mistral_ai"],
  ["xai", "x_ai"],
  ["x_ai", "x_ai"],
  ["watsonx", "ibm.watsonx.ai"],
  ["ibm.watsonx.ai", "ibm.watsonx.ai"],
]);

/**
 * The `gen_ai.provider.name` of a provider id: its well-known value when the id (or a dotted
 * prefix of it: the AI SDK's `"openai.responses"`, `"google.vertex.chat"`) is one, else the id
 * itself (the conventions allow a custom value: `"ollama"`, `"moonshot"`, `"fake"`).
 */
export function providerName(id: string): string {
  for (let key = id.toLowerCase(); ;) {
    const known = WELL_KNOWN_PROVIDER_NAMES.get(key);
    if (known !== undefined) return known;
    const dot = key.lastIndexOf(".");
    if (dot <= 0) return id;
    key = key.slice(0, dot);
  }
}

/**
 * The `error.type` of a failed model call or turn, from what the loop reports: the provider's
 * own error type or code (`"overloaded_error"`, `"rate_limit_exceeded"`, `"idle_timeout"`), else
 * `"ProviderError"` for a provider error without one, else `"_OTHER"`.
 */
export function errorTypeOf(error: { code?: string | undefined; provider?: string | undefined }): string {
  if (error.code !== undefined && error.code !== "") return error.code;
  return error.provider === undefined ? OTHER_ERROR : "ProviderError";
}

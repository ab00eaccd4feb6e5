import type { AgentDefinition } from "../../contracts/agent-definition.js";
import { buildSystemPrompt } from "../../agents/build-system-prompt.js";
import { InvalidArgumentError } from "../../errors/errors.js";
import type { BudgetLimits } from "../../contracts/budget.js";
import { DEFAULT_BUDGET } from "../../loop/budget.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import { composeToolbelt } from "../../policy/compose-toolbelt.js";
import { defaultPolicy } from "../../policy/default-policy.js";
import { applyRole, type RoleDefinition } from "../../modes/roles.js";
import type { RoleLookup } from "../../modes/role-lookup.js";
import type { ChatContext, ToolPolicy } from "../../contracts/tool-policy.js";
import type { ModelRequest, Provider } from "../../contracts/provider.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { Tool } from "../../contracts/tool.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { AgentRuntimeOptions } from "../records/runtime-options.js";
import { offeredUnder } from "./mode-tools.js";
import { agentScopeKeeps } from "../../internal/toolbelt-scope.js";
import { RUN_SUBTASK } from "../../loop/subtask-tools.js";
import { externalAgentProvider } from "./external-agent.js";

/** An agent made ready for one turn. */
export interface PreparedAgent {
  provider: Provider;
  model: string;
  policy: ToolPolicy;
  tools: Tool[];
  systemPrompt: string;
  budget: Partial<BudgetLimits>;
  /**
   * The agent's `chat.temperature`, `chat.maxOutputTokens` and `chat.providerOptions`, for every model call of its
   * turns.
   */
  modelOptions: Pick<ModelRequest, "maxOutputTokens" | "temperature" | "providerOptions">;
  /** Toolbelt warnings, as loop events to publish at the start of the turn. */
  warnings: LoopEvent[];
  /** The agent is answered by a host handler (`AgentRuntimeOptions.external`), not a model. @default false */
  external?: boolean;
}

/** Everything an agent turn depends on that is not in the session. */
export interface PrepareAgentInput {
  options: AgentRuntimeOptions;
  /** The runtime's roles. */
  roleOf: RoleLookup;
  agent: AgentDefinition;
  session: SessionSummary;
  chatContext: ChatContext;
  /** Runtime-built tools offered besides the host's (agents_message & co.). */
  builtinTools: Tool[];
  /** The session's current role, when it differs from the agent's (`setRole`). @default the agent's `role` */
  role?: string | null;
  /** The turn's host context (`SendInput.context`), for a `policy` function. */
  context?: JsonValue | undefined;
  /** Only these tools of the toolbelt (a background agent's `toolSubset`). @default all of it */
  toolSubset?: readonly string[];
}

/**
 * Resolves provider, model, policy (with the agent's role), toolbelt (registered ∩ agent scope ∩
 * policy ∩ context) and system prompt. Throws `InvalidArgumentError` for a misconfiguration before
 * anything is stored.
 */
export function prepareAgent(input: PrepareAgentInput): PreparedAgent {
  const { options, roleOf, agent, session, chatContext, builtinTools, role: roleName } = input;
  const { provider, model } = resolveModel(options, agent);
  const name = roleName === undefined ? agent.role : (roleName ?? undefined);
  const role: RoleDefinition | undefined = name === undefined ? undefined : roleOf(name);
  const base =
    typeof options.policy === "function"
      ? options.policy(session, agent, { chatContext, ...(input.context !== undefined && { context: input.context }) })
      : (options.policy ?? defaultPolicy(chatContext.kind));
  const policy = role ? applyRole(base, role) : base;
  const warnings: LoopEvent[] = [];
  const composed = composeToolbelt({
    tools: [
      ...(typeof options.tools === "function" ? options.tools() : (options.tools ?? [])),
      ...builtinTools.filter((tool) => offeredUnder(tool, role)),
    ],
    policy,
    agent,
    chatContext,
    onWarning: (message, code) => warnings.push({ type: "warning", code, message, depth: 0, parentId: null }),
  });
  const subset = input.toolSubset;
  // A handler answers in text: an external agent it serves is offered no tools.
  const handled = agent.type === "external" && options.external?.[agent.agentId] !== undefined;
  const tools = handled ? [] : subset === undefined ? composed : composed.filter((tool) => subset.includes(tool.name));
  const systemPrompt = buildSystemPrompt({
    agent,
    tools,
    // Listing agents the model cannot message would only invite calls that fail.
    ...(tools.some((tool) => tool.name === "agents_message") && { registry: options.registry }),
    chatContext,
    sessionId: session.sessionId,
    ...(options.skills && { skills: options.skills }),
    ...(options.promptSections && { sections: options.promptSections }),
    role: role ?? null,
    subtasks:
      policy.classes.includes("subagent") &&
      agentScopeKeeps(tools, RUN_SUBTASK) &&
      (agent.budget?.maxDepth ?? options.budget?.maxDepth ?? DEFAULT_BUDGET.maxDepth) > 0,
  });
  const chat = agent.chat;
  const modelOptions: PreparedAgent["modelOptions"] = {
    ...(chat?.temperature !== undefined && { temperature: chat.temperature }),
    ...(chat?.maxOutputTokens !== undefined && { maxOutputTokens: chat.maxOutputTokens }),
    ...(chat?.providerOptions !== undefined && { providerOptions: chat.providerOptions }),
  };
  return {
    provider,
    model,
    policy,
    tools,
    systemPrompt,
    budget: { ...options.budget, ...agent.budget },
    modelOptions,
    warnings,
    ...(handled && { external: true }),
  };
}

/**
 * The provider and model an agent runs on: an external agent with a handler (`options.external`)
 * runs on that handler (model `chat.model ?? "external"`); else (`chat.provider`/`chat.model`, else the runtime's
 * defaults: `defaultProvider`, else the only provider, else `"openai"` when registered). Throws `InvalidArgumentError`
 * naming what is missing.
 */
export function resolveModel(
  options: AgentRuntimeOptions,
  agent: AgentDefinition,
): { provider: Provider; model: string } {
  const handler = agent.type === "external" ? options.external?.[agent.agentId] : undefined;
  if (handler !== undefined)
    return { provider: externalAgentProvider(agent.agentId, handler), model: agent.chat?.model ?? "external" };
  const providerIds = Object.keys(options.providers);
  // chat.provider defaults to "openai" (with one provider registered, that one).
  const fallback = providerIds.length === 1 ? providerIds[0] : providerIds.includes("openai") ? "openai" : undefined;
  const providerId = agent.chat?.provider ?? options.defaultProvider ?? fallback;
  const provider = providerId === undefined ? undefined : options.providers[providerId];
  if (!provider) {
    throw new InvalidArgumentError(
      `Agent "${agent.agentId}" has no provider: ${providerId === undefined ? "set chat.provider or defaultProvider" : `"${providerId}" is not registered`} (registered: ${providerIds.join(", ") || "none"})`,
    );
  }
  const model = agent.chat?.model ?? options.defaultModel;
  if (model === undefined)
    throw new InvalidArgumentError(`Agent "${agent.agentId}" has no model: set chat.model or defaultModel`);
  return { provider, model };
}

import { AgentConfigError, type ConfigProblem } from "../errors/errors.js";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import type { AgentRegistry } from "../contracts/agent-registry.js";
import { parseAgentDefinition } from "./parse-agent-definition.js";
import { isVisibleTo } from "./agent-visibility.js";

/** What {@link createAgentRegistry} takes: a configuration file's content, or the definitions. */
export type AgentRegistryConfig = { agents: unknown[] } | AgentDefinition[];

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function agentsOf(config: unknown): unknown[] {
  if (Array.isArray(config)) return config;
  if (typeof config !== "object" || config === null) {
    throw new AgentConfigError([{ path: "", message: "expected { agents: [...] } or an array of agent definitions" }]);
  }
  const { agents } = config as { agents?: unknown };
  if (!Array.isArray(agents)) {
    throw new AgentConfigError([
      {
        path: "agents",
        message:
          agents === undefined
            ? "is required (an array of agent definitions)"
            : "expected an array of agent definitions",
      },
    ]);
  }
  return agents;
}

/**
 * Validates agent definitions and returns a registry of them.
 *
 * Takes the content of a configuration file (`{ "agents": [...] }`, other top-level keys are
 * ignored so a host can pass its whole config) or an array of definitions; both are validated,
 * because typed input can still come from JSON. Each agent is checked with
 * `parseAgentDefinition`, then `agentId`s must be unique.
 *
 * Throws one `AgentConfigError` before anything is registered when anything is wrong; its
 * `problems` name every problem of every agent, with paths such as `agents[1].toolAllowlist[0]`
 * (for an array too). A repeated `agentId` is reported at the later agent's `agentId`.
 *
 * The registry keeps configuration order. Its definitions are frozen deep copies with `null`s
 * dropped (`toolAllowlist: null` reads back unset); later changes to `config` do not reach it.
 *
 * @example
 * const registry = createAgentRegistry(JSON.parse(await readFile("agents.json", "utf8")));
 * registry.get("todo")?.displayName; // "Todo Manager"
 */
export function createAgentRegistry(config: AgentRegistryConfig): AgentRegistry {
  const agents = agentsOf(config);
  const problems: ConfigProblem[] = [];
  const definitions: AgentDefinition[] = [];
  const firstIndex = new Map<string, number>();

  agents.forEach((input, index) => {
    const path = `agents[${index}]`;
    const result = parseAgentDefinition(input, { path });
    if (result.success) definitions.push(deepFreeze(result.definition));
    else problems.push(...result.problems);
    // Duplicates are checked on the raw id, so an agent with other problems still gets this one.
    const agentId = (input as { agentId?: unknown } | null)?.agentId;
    if (typeof agentId !== "string" || agentId === "") return;
    const first = firstIndex.get(agentId);
    if (first === undefined) firstIndex.set(agentId, index);
    else
      problems.push({
        path: `${path}.agentId`,
        message: `duplicate agentId "${agentId}" (already used by agents[${first}])`,
      });
  });
  if (problems.length > 0) throw new AgentConfigError(problems);

  const byId = new Map(definitions.map((definition) => [definition.agentId, definition]));
  return {
    get: (agentId) => byId.get(agentId),
    list: (query) =>
      query?.visibleTo === undefined
        ? definitions.slice()
        : definitions.filter((agent) => isVisibleTo(agent, query.visibleTo)),
  };
}

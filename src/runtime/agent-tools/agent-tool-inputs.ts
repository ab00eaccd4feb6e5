import { z } from "zod";
import type { ToolContext } from "../../contracts/tool.js";

/** Most tool names `start_background_agent` takes, and their longest name. */
const MAX_SUBSET_TOOLS = 200;
const MAX_TOOL_NAME = 64;

/**
 * What the model is shown of the runtime's agent tools (name, description, class, input schema),
 * apart from what they do (one file per tool, loaded on the first call of one: see agent-tools.ts).
 * Built on each call: importing the core builds no zod schema.
 */
export function agentToolInputs() {
  return {
    agents_message: {
      name: "agents_message",
      description:
        "Send a message to another agent and get its answer (sync), or start it and go on (async). The exchange is recorded in that agent's session.",
      permissionClass: "subagent",
      input: z.object({
        agentId: z.string().describe("The agent to message."),
        content: z.string().describe("The message, as a user message to that agent."),
        session: z
          .string()
          .optional()
          .describe('"latest", "create", "latest-or-create" (default) or a session id of that agent.'),
        mode: z
          .enum(["sync", "async"])
          .optional()
          .describe('"sync" (default) waits for the answer; "async" returns at once.'),
        timeout: z
          .number()
          .positive()
          .optional()
          .describe(
            "Seconds to wait in sync mode (default 300; above about 24 days = no limit). The run goes on after a timeout.",
          ),
      }),
    },
    start_background_agent: {
      name: "start_background_agent",
      description:
        "Start a new background agent with a first message and return its session id at once. " +
        "It works on its own and reports back with send_agent_message. " +
        "Optionally limit it to some of your tools and give it a time budget.",
      permissionClass: "subagent",
      input: z.object({
        prompt: z.string().describe("The task. Ask it to report progress and results with send_agent_message."),
        agentId: z.string().optional().describe("Which agent to start (default: your own kind)."),
        name: z.string().optional().describe("A name for the background session."),
        tools: z
          .array(z.string().max(MAX_TOOL_NAME))
          .max(MAX_SUBSET_TOOLS)
          .optional()
          .describe(
            "Only these of your tools (send_agent_message is kept to report back). Default: the agent's own tools.",
          ),
        timeoutMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(
            "Time budget in milliseconds: at the end it is stopped and you are told. Default: no limit of its own.",
          ),
      }),
    },
    send_agent_message: {
      name: "send_agent_message",
      description:
        "Send a message to another agent's session. Default target: the agent that started you (for a background agent), else the most recent foreground session you may see. It is delivered as a system message and the agent answers it on its own.",
      permissionClass: "subagent",
      input: z.object({
        text: z.string().describe("What to tell the agent."),
        sessionId: z.string().optional().describe("The target session (e.g. a background agent you started)."),
        agentId: z.string().optional().describe("The target agent (its most recent session)."),
      }),
    },
    close_background_agent: {
      name: "close_background_agent",
      description:
        "Merge and close a background agent you started once its work is done (status waiting_for_merge): returns its final answer and whether it completed or failed. A running agent cannot be closed yet.",
      permissionClass: "subagent",
      input: z.object({ sessionId: z.string().describe("The background agent's session id.") }),
    },
    list_background_agents: {
      name: "list_background_agents",
      description:
        "List the background agents you started that are not closed yet, with where each is (running, waiting_for_merge: its result is ready for close_background_agent).",
      permissionClass: "subagent",
      input: z.object({}),
    },
  } as const;
}

/** The agent tools whose calls load on first use. */
export type AgentToolName = keyof ReturnType<typeof agentToolInputs>;

/** The arguments of agent tool `K`, as its input schema gives them once validated. */
export type AgentToolArgs<K extends AgentToolName> = z.infer<ReturnType<typeof agentToolInputs>[K]["input"]>;

/** What one agent tool does with the arguments the model wrote (validated against its schema). */
export type AgentToolCall<K extends AgentToolName> = (args: AgentToolArgs<K>, ctx: ToolContext) => Promise<unknown>;

/** Every agent tool's call, by tool name. */
export type AgentToolCalls = { [K in AgentToolName]: AgentToolCall<K> };

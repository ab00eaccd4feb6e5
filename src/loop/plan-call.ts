import type { ToolCallPart } from "../contracts/message.js";
import { validateToolArgs } from "../tools/validate-tool-args.js";
import { classRefusal } from "../tools/declared-read-only.js";
import { toolPermissionClasses } from "../tools/permission-classes.js";
import type { Level, PlannedCall, RefusePlan } from "./level.js";
import type { ToolRefusal } from "../contracts/loop-event.js";
import { FINISH_SUBTASK, RUN_SUBTASK, SUBTASK_LIMITS, type RunSubtaskArgs } from "./subtask-tools.js";
import { createJsonSchemaValidator, type ValueValidator } from "../schema/validate.js";
import { createModelSchemaValidator } from "../schema/model-schema-validator.js";
import { readToolArgs } from "./tool-call-args.js";
import { echoName, errorMessage } from "./tool-result.js";

/** `run_subtask`'s argument check, built on its first use (not when the core is imported). */
const runSubtaskValidator: ValueValidator = (args) => (subtaskValidator ??= createSubtaskValidator())(args);
let subtaskValidator: ValueValidator | undefined;

const createSubtaskValidator = () =>
  createJsonSchemaValidator({
    type: "object",
    properties: {
      title: { type: "string", maxLength: SUBTASK_LIMITS.title },
      instructions: { type: "string", maxLength: SUBTASK_LIMITS.instructions },
      tools: {
        type: "array",
        maxItems: SUBTASK_LIMITS.tools,
        items: { type: "string", maxLength: SUBTASK_LIMITS.toolName },
      },
      output_schema: { type: "object" },
      plan_step: { type: "integer", minimum: 1, maximum: SUBTASK_LIMITS.planStep },
    },
    required: ["title", "instructions"],
  });

/**
 * Decides what a call is before anything runs: an intercepted sub-task tool, a permitted tool
 * with valid arguments, or a refusal the model will read (unknown, not permitted, invalid args,
 * depth limit). Approval need is settled later (it may be async).
 */
export function planCall(level: Level, call: ToolCallPart): PlannedCall {
  // Providers hand over arguments they could not parse as the raw string; callModel left a fixed
  // text in place of arguments it could not keep (nested deeper than 64 levels, unreadable).
  const read = readToolArgs(call.name, call.args);
  if (!read.ok) return refuse(call, call.args, read.refusal, "invalid_arguments");
  const args = read.value;
  const { turn } = level;
  // A step whose tools the host narrowed (prepareStep's activeTools) runs only those.
  if (level.stepTools && !level.stepTools.has(call.name)) {
    const offered = [...level.stepTools].join(", ") || "none";
    return refuse(call, args, `Unknown tool "${echoName(call.name)}". Available tools: ${offered}.`, "unknown_tool");
  }
  // Outside the agent's tool lists, run_subtask is refused below like any tool outside the toolbelt.
  if (call.name === RUN_SUBTASK && turn.loopTools.runSubtask) {
    if (turn.policy && !turn.policy.classes.includes("subagent"))
      return refuse(call, args, `Tool "${RUN_SUBTASK}" is not permitted by the session policy.`, "not_permitted");
    if (level.depth >= turn.budget.limits.maxDepth) {
      return refuse(
        call,
        args,
        `Cannot run a sub-task here: the depth limit (maxDepth ${turn.budget.limits.maxDepth}) is reached. Do the work directly with your own tools.`,
        "depth_limit",
      );
    }
    const checked = runSubtaskValidator(args);
    if (!checked.ok)
      return refuse(call, args, `Invalid arguments for "${RUN_SUBTASK}": ${checked.message}`, "invalid_arguments");
    const input = args as RunSubtaskArgs;
    if (input.output_schema !== undefined && !turn.loopTools.finishSubtask) {
      const message = `${FINISH_SUBTASK} is not in your toolbelt, so a sub-task cannot have an output_schema. Call ${RUN_SUBTASK} without it.`;
      return refuse(call, args, `Invalid arguments for "${RUN_SUBTASK}": ${message}`, "invalid_arguments");
    }
    try {
      // The model wrote this schema: bounded checks only (see createModelSchemaValidator).
      const outputValidator =
        input.output_schema === undefined
          ? undefined
          : createModelSchemaValidator(input.output_schema, { maxValueBytes: turn.budget.limits.maxToolResultBytes });
      return { kind: "subtask", call, args, input, outputValidator, startedAt: undefined };
    } catch (error) {
      return refuse(
        call,
        args,
        `Invalid output_schema for "${RUN_SUBTASK}": ${errorMessage(error)}. Fix the schema and call ${RUN_SUBTASK} again.`,
        "invalid_arguments",
      );
    }
  }
  if (call.name === (level.finishName ?? FINISH_SUBTASK) && level.outputValidator) {
    return { kind: "finish", call, args, input: args, outputValidator: level.outputValidator, startedAt: undefined };
  }
  const tool = level.tools.get(call.name);
  if (!tool) {
    return refuse(
      call,
      args,
      `Unknown tool "${echoName(call.name)}". Available tools: ${[...level.tools.keys(), ...(level.offersSubtask ? [RUN_SUBTASK] : [])].join(", ") || "none"}.`,
      "unknown_tool",
    );
  }
  const refused = turn.policy && classRefusal(tool, turn.policy);
  if (refused) return refuse(call, args, `Tool "${call.name}" is not permitted: ${refused}.`, "not_permitted");
  if (turn.policy && tool.mcpServer !== undefined && !turn.policy.allowedMcpServers.includes(tool.mcpServer)) {
    return refuse(
      call,
      args,
      `Tool "${call.name}" is not permitted: MCP server "${tool.mcpServer}" is not allowed for this session.`,
      "mcp_server_not_allowed",
    );
  }
  let checked: ReturnType<typeof validateToolArgs>;
  try {
    checked = validateToolArgs(tool, args);
  } catch (error) {
    // A host schema the validator cannot use (a $ref to nothing in a hand-made Tool): the call
    // is refused, the turn goes on.
    checked = { ok: false, message: `the tool's input schema could not be used (${errorMessage(error)})` };
  }
  if (!checked.ok)
    return refuse(call, args, `Invalid arguments for "${call.name}": ${checked.message}`, "invalid_arguments");
  const approval = turn.policy?.approval;
  const needsApproval =
    tool.requiresApproval === true ||
    (approval?.tools?.includes(tool.name) ?? false) ||
    toolPermissionClasses(tool).some((c) => approval?.classes?.includes(c) ?? false);
  return { kind: "tool", call, args, tool, input: checked.value, needsApproval, startedAt: undefined };
}

/** A refusal plan (a new value; `startedAt` carried over when the plan it replaces had started). */
export function refuse(
  call: ToolCallPart,
  args: unknown,
  refusal: string,
  refused?: ToolRefusal,
  startedAt?: number,
): RefusePlan {
  return { kind: "refuse", call, args, refusal, ...(refused !== undefined && { refused }), startedAt };
}

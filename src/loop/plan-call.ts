import type { ToolCallPart } from "../contracts/message.js";
import { validateToolArgs } from "../tools/validate-tool-args.js";
import { classRefusal } from "../tools/declared-read-only.js";
import type { CallPlan, Level } from "./level.js";
import { FINISH_SUBTASK, RUN_SUBTASK } from "./subtask-tools.js";
import { createJsonSchemaValidator } from "../schema/validate.js";
import { createModelSchemaValidator } from "../schema/model-schema-validator.js";
import { echoName, errorMessage } from "./tool-result.js";

const runSubtaskValidator = createJsonSchemaValidator({
  type: "object",
  properties: {
    title: { type: "string" },
    instructions: { type: "string" },
    tools: { type: "array", items: { type: "string" } },
    output_schema: { type: "object" },
  },
  required: ["title", "instructions"],
});

/**
 * Decides what a call is before anything runs: an intercepted sub-task tool, a permitted tool
 * with valid arguments, or a refusal the model will read (unknown, not permitted, invalid args,
 * depth limit). Approval need is settled later (it may be async).
 */
export function planCall(level: Level, call: ToolCallPart): CallPlan {
  const plan: CallPlan = {
    call,
    kind: "refuse",
    tool: undefined,
    args: call.args,
    input: undefined,
    refusal: undefined,
    needsApproval: false,
    decision: undefined,
    requestId: undefined,
    outputValidator: undefined,
    started: false,
    startedAt: 0,
  };
  let args = call.args;
  if (typeof args === "string") {
    // Providers hand over arguments they could not parse as the raw string.
    try {
      args = args.trim() === "" ? {} : (JSON.parse(args) as unknown);
    } catch {
      plan.refusal = `Invalid arguments for "${echoName(call.name)}": not valid JSON. Send the arguments as a JSON object.`;
      plan.refused = "invalid_arguments";
      return plan;
    }
  }
  plan.args = args;
  const { turn } = level;
  if (call.name === RUN_SUBTASK) {
    if (turn.policy && !turn.policy.classes.includes("subagent")) {
      plan.refusal = `Tool "${RUN_SUBTASK}" is not permitted by the session policy.`;
      plan.refused = "not_permitted";
    } else if (level.depth >= turn.budget.limits.maxDepth) {
      plan.refusal = `Cannot run a sub-task here: the depth limit (maxDepth ${turn.budget.limits.maxDepth}) is reached. Do the work directly with your own tools.`;
      plan.refused = "depth_limit";
    } else {
      const checked = runSubtaskValidator(args);
      if (checked.ok) {
        const schema = (args as { output_schema?: unknown }).output_schema;
        try {
          // The model wrote this schema: bounded checks only (see createModelSchemaValidator).
          if (schema !== undefined) plan.outputValidator = createModelSchemaValidator(schema, { maxValueBytes: turn.budget.limits.maxToolResultBytes });
          plan.kind = "subtask";
          plan.input = args;
        } catch (error) {
          plan.refusal = `Invalid output_schema for "${RUN_SUBTASK}": ${errorMessage(error)}. Fix the schema and call ${RUN_SUBTASK} again.`;
          plan.refused = "invalid_arguments";
        }
      } else {
        plan.refusal = `Invalid arguments for "${RUN_SUBTASK}": ${checked.message}`;
        plan.refused = "invalid_arguments";
      }
    }
    return plan;
  }
  if (call.name === (level.finishName ?? FINISH_SUBTASK) && level.outputValidator) {
    plan.kind = "finish";
    plan.input = args;
    return plan;
  }
  const tool = level.tools.get(call.name);
  if (!tool) {
    plan.refusal = `Unknown tool "${echoName(call.name)}". Available tools: ${[...level.tools.keys(), ...(level.offersSubtask ? [RUN_SUBTASK] : [])].join(", ") || "none"}.`;
    plan.refused = "unknown_tool";
    return plan;
  }
  const refused = turn.policy && classRefusal(tool, turn.policy);
  if (refused) {
    plan.refusal = `Tool "${call.name}" is not permitted: ${refused}.`;
    plan.refused = "not_permitted";
    return plan;
  }
  if (turn.policy && tool.mcpServer !== undefined && !turn.policy.allowedMcpServers.includes(tool.mcpServer)) {
    plan.refusal = `Tool "${call.name}" is not permitted: MCP server "${tool.mcpServer}" is not allowed for this session.`;
    plan.refused = "mcp_server_not_allowed";
    return plan;
  }
  let checked: ReturnType<typeof validateToolArgs>;
  try {
    checked = validateToolArgs(tool, args);
  } catch (error) {
    // A host schema the validator cannot use (a $ref to nothing in a hand-made Tool): the call
    // is refused, the turn goes on.
    checked = { ok: false, message: `the tool's input schema could not be used (${errorMessage(error)})` };
  }
  if (!checked.ok) {
    plan.refusal = `Invalid arguments for "${call.name}": ${checked.message}`;
    plan.refused = "invalid_arguments";
    return plan;
  }
  plan.kind = "tool";
  plan.tool = tool;
  plan.input = checked.value;
  const approval = turn.policy?.approval;
  plan.needsApproval =
    tool.requiresApproval === true ||
    (approval?.tools?.includes(tool.name) ?? false) ||
    (approval?.classes?.includes(tool.permissionClass) ?? false);
  return plan;
}

import type { ModelTool } from "../contracts/provider.js";
import type { JsonSchema } from "../contracts/json-schema.js";

/** Name of the sub-task tool the loop intercepts. */
export const RUN_SUBTASK = "run_subtask";
/** Name of the tool a structured sub-task ends with. */
export const FINISH_SUBTASK = "finish_subtask";
/** Name of the tool a root level with an `outputSchema` ends with. */
export const FINAL_ANSWER = "final_answer";

/**
 * Caps on `run_subtask`'s arguments (model-written; they reach the child's prompt, events and the
 * execution tree): title 200 characters, instructions 100,000, at most 256 tool names of 256
 * characters, `plan_step` a whole number from 1 to 1,000. Others are an invalid-arguments error
 * result the model can fix.
 */
export const SUBTASK_LIMITS = { title: 200, instructions: 100_000, tools: 256, toolName: 256, planStep: 1000 } as const;

/** Arguments of `run_subtask`. */
export interface RunSubtaskArgs {
  title: string;
  instructions: string;
  tools?: string[];
  output_schema?: JsonSchema;
  /** The approved plan's `step_number` the sub-task carries out (events inside it get `stepIndex`). */
  plan_step?: number;
}

const RUN_SUBTASK_DESCRIPTION =
  "Delegate a self-contained piece of work to a sub-agent that starts with a fresh context and returns its result. " +
  "Call it several times in one response to run independent sub-tasks in parallel.";

/** `run_subtask`'s arguments but `output_schema`. */
const PLAIN_SUBTASK_PROPERTIES = {
  title: {
    type: "string",
    maxLength: SUBTASK_LIMITS.title,
    description: "Short label for the sub-task (shown in the UI).",
  },
  instructions: {
    type: "string",
    maxLength: SUBTASK_LIMITS.instructions,
    description: "What the sub-task must accomplish, with all context it needs.",
  },
  tools: {
    type: "array",
    maxItems: SUBTASK_LIMITS.tools,
    items: { type: "string", maxLength: SUBTASK_LIMITS.toolName },
    description: "Optional: restrict the sub-agent to these of your tools.",
  },
  plan_step: {
    type: "integer",
    minimum: 1,
    maximum: SUBTASK_LIMITS.planStep,
    description: "Optional: the step_number of the approved plan this sub-task carries out (shown in the UI).",
  },
};

/**
 * The model-facing definition of `run_subtask`.
 *
 * `output_schema` is written by the model, so it is checked with bounded cost before the child
 * starts (`createModelSchemaValidator`, limits in `MODEL_SCHEMA_LIMITS`): at most 16 KB, 32
 * levels and 5,000 subschemas with `$ref`s inlined; `$ref`s only to `#/$defs/<name>` (or
 * `#/definitions/<name>`) that exist, never in a cycle; no `$id`, `$anchor`, dynamic or recursive
 * references, no `patternProperties`; `pattern`s run on a linear-time engine (no backreferences,
 * lookaround or `\p{...}`); `format` is an annotation. A schema that breaks a rule is an error
 * result saying what to change; a `finish_subtask` result larger than `maxToolResultBytes` is
 * refused to the child.
 */
export const runSubtaskTool: ModelTool = {
  name: RUN_SUBTASK,
  description: RUN_SUBTASK_DESCRIPTION,
  inputSchema: {
    type: "object",
    properties: {
      ...PLAIN_SUBTASK_PROPERTIES,
      output_schema: {
        type: "object",
        description:
          "Optional: JSON Schema the sub-task's result must match; the result then comes back as JSON. " +
          'Limits: at most 16 KB and 32 levels; $ref only to "#/$defs/<name>" (no recursion); no $id, anchors or patternProperties; ' +
          "pattern without backreferences or lookaround; format is not checked; the result must fit the tool-result size limit.",
      },
    },
    required: ["title", "instructions"],
    additionalProperties: false,
  },
};

/**
 * `run_subtask` for an agent whose tool lists leave out `finish_subtask`: without
 * `output_schema` (a structured sub-task could only end through `finish_subtask`).
 */
export const runSubtaskToolWithoutSchema: ModelTool = {
  name: RUN_SUBTASK,
  description: RUN_SUBTASK_DESCRIPTION,
  inputSchema: {
    type: "object",
    properties: PLAIN_SUBTASK_PROPERTIES,
    required: ["title", "instructions"],
    additionalProperties: false,
  },
};

/**
 * The model-facing definition of the finish tool for a given output schema: `finish_subtask` for
 * a sub-task, `final_answer` for a root level with an `outputSchema`.
 */
export function finishSubtaskTool(outputSchema: JsonSchema, name: string = FINISH_SUBTASK): ModelTool {
  return {
    name,
    description:
      name === FINISH_SUBTASK
        ? "Finish this sub-task and return its result. The result must match the required schema."
        : "End your work by calling this tool with { result } matching the required schema: it is your final answer. Do not end with plain text.",
    inputSchema: {
      type: "object",
      properties: { result: outputSchema },
      required: ["result"],
      additionalProperties: false,
    },
  };
}

/** What the sub-task prompt needs to know. */
export interface SubtaskPromptInfo {
  title: string;
  depth: number;
  maxDepth: number;
  outputSchema?: JsonSchema;
}

/**
 * The system prompt of a sub-task: it mentions `run_subtask` only below the depth
 * limit, and requires `finish_subtask` when an output schema applies.
 */
export function buildSubtaskSystemPrompt(info: SubtaskPromptInfo): string {
  const lines = [
    `You are a sub-agent working on one part of a larger request: "${info.title}".`,
    "Your instructions are in the user message. Work only on them, using your tools when they help.",
  ];
  if (info.depth < info.maxDepth) {
    lines.push(
      "If a part of the work is large and separable, you can delegate it with run_subtask; each sub-task starts with a fresh context.",
    );
  }
  if (info.outputSchema) {
    lines.push(
      "When you are done you must call finish_subtask with { result } matching this JSON Schema; do not end with plain text:",
      JSON.stringify(info.outputSchema),
    );
  } else {
    lines.push("When you are done, reply with the final result as plain text: it is returned to the caller as is.");
  }
  return lines.join("\n");
}

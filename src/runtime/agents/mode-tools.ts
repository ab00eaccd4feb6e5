import { z } from "zod";
import type { AssistantMessage, MessageType } from "../../contracts/message.js";
import { parsePlan } from "../../modes/parse-plan.js";
import { planFormats } from "../../modes/plan-format.js";
import { defineTool } from "../../tools/define-tool.js";
import type { Tool } from "../../contracts/tool.js";

/** Marks the runtime's own mode tools (a host tool of the same name is not one). Not enumerable. */
const MODE_TOOL: unique symbol = Symbol.for("agentry.runtime.modeTool");

export const ASK_USER = "ask_user";
export const CREATE_ARTIFACT = "create_artifact";
export const REQUEST_BUILD_MODE = "request_build_mode";

/** Longest artifact content `create_artifact` takes (characters). */
export const MAX_ARTIFACT_CHARS = 200_000;

/** What {@link parsePlan} returns. */
export type ParsedPlan = ReturnType<typeof parsePlan>;

/**
 * Reads plans for one runtime, remembering the last few by content: one `create_artifact` call's
 * plan is looked at three times (the calling message's `messageType`, the tool's check, the stored
 * artifact's `plan_ready`) and parsed once. `forget` drops a content once its last reader is done.
 */
export interface PlanReader {
  read(content: string): ParsedPlan;
  forget(content: string): void;
}

/** Contents remembered by a {@link PlanReader} (calls in flight at once across the runtime's sessions). */
const REMEMBERED_PLANS = 16;

/** A {@link PlanReader} with its own memory, remembering at most `size` contents. */
export function createPlanReader(size = REMEMBERED_PLANS): PlanReader {
  const recent = new Map<string, ParsedPlan>();
  return {
    read(content) {
      const known = recent.get(content);
      if (known !== undefined) return known;
      const parsed = parsePlan(content);
      recent.set(content, parsed);
      if (recent.size > size) recent.delete(recent.keys().next().value!);
      return parsed;
    },
    forget: (content) => void recent.delete(content),
  };
}

function mark(tool: Tool): Tool {
  Object.defineProperty(tool, MODE_TOOL, { value: true, enumerable: false });
  return tool;
}

/**
 * Whether the runtime offers mode tool `tool` to a session. An agent without a role is in Act
 * mode: it is offered `ask_user`, like the actor, and no other mode tool. Under a role every mode
 * tool is offered, `request_build_mode` only under a read-only role. The toolbelt's scoping and
 * policy apply after this (an agent's deny list can still take `ask_user` away).
 */
export function offeredUnder(tool: Tool, role: { readOnly?: boolean } | undefined): boolean {
  if ((tool as { [MODE_TOOL]?: boolean })[MODE_TOOL] !== true) return true;
  if (role === undefined) return tool.name === ASK_USER;
  return tool.name !== REQUEST_BUILD_MODE || role.readOnly === true;
}

/** Whether `tools` offers the runtime's own mode tool `name` (not a host tool that took the name). */
export function offersModeTool(tools: readonly Tool[], name: string): boolean {
  const tool = tools.find((t) => t.name === name);
  return tool !== undefined && (tool as { [MODE_TOOL]?: boolean })[MODE_TOOL] === true;
}

/**
 * The runtime's plan / question tools. They write nothing themselves: the
 * runtime stores what they produce (artifact records, questions, role switches) in the session
 * log. Class `safe` and declared read-only, so the planner may use them.
 *
 * - `ask_user`: always suspends the turn (never asks the host's `approve`); the answer given to
 *   `answerQuestion` is the call's result.
 * - `create_artifact`: checks the artifact (a `plan` must parse) and returns its id; the runtime
 *   stores it when the call ended without error.
 * - `request_build_mode`: an approval request; once approved, the runtime switches the session to
 *   the actor from its next turn.
 */
export function createModeTools(plans: PlanReader = createPlanReader()): Tool[] {
  const askUser = defineTool({
    name: ASK_USER,
    description:
      "Ask the user a question with options (and optionally a free-text answer) and wait for the answer. Use it for decisions that are the user's: deleting files, changes beyond the plan, uncertainty about the approach.",
    permissionClass: "safe",
    readOnly: true,
    parallelSafe: false,
    requiresApproval: true,
    input: planFormats().questionFields,
    execute: () => {
      throw new Error("The question has no answer: ask_user is answered through runtime.answerQuestion.");
    },
  });
  const createArtifact = defineTool({
    name: CREATE_ARTIFACT,
    description:
      'Store an artifact of this conversation. To submit a plan for review, call it with kind "plan", filename "plan.md" and the whole plan as content (a goal line and numbered steps, or the plan JSON).',
    permissionClass: "safe",
    readOnly: true,
    parallelSafe: false,
    input: z.object({
      filename: z.string().min(1).max(256).describe('e.g. "plan.md"'),
      kind: z.string().min(1).max(64).describe('"plan" submits a plan for review; any other kind is stored as it is.'),
      content: z.string().max(MAX_ARTIFACT_CHARS).describe("The artifact's full content."),
    }),
    execute: (args, ctx) => {
      if (args.kind === "plan") {
        const parsed = plans.read(args.content);
        if (!parsed.ok) {
          plans.forget(args.content);
          throw new Error(`The plan could not be read: ${parsed.error}. Fix it and call create_artifact again.`);
        }
        return {
          status: "created",
          artifactId: artifactIdOf(ctx.toolCallId),
          filename: args.filename,
          kind: args.kind,
          goal: parsed.plan.goal,
          steps: parsed.plan.steps.length,
        };
      }
      return { status: "created", artifactId: artifactIdOf(ctx.toolCallId), filename: args.filename, kind: args.kind };
    },
  });
  const requestBuildMode = defineTool({
    name: REQUEST_BUILD_MODE,
    description:
      "Ask the user to switch this conversation to build mode (the actor role, which may modify things). Waits for their decision.",
    permissionClass: "safe",
    readOnly: true,
    parallelSafe: false,
    requiresApproval: true,
    input: z.object({ reason: z.string().max(2_000).describe("Why you need to modify things now.") }),
    execute: () => ({ approved: true, note: "Build mode starts with the next message." }),
  });
  return [mark(askUser), mark(createArtifact), mark(requestBuildMode)];
}

/** The id of the artifact a `create_artifact` call stores (fixed by the call, so a retry stores nothing twice). */
export function artifactIdOf(toolCallId: string): string {
  return `artifact:${toolCallId}`;
}

/**
 * The `messageType` of an assistant message whose calls the runtime's mode tools will take:
 * `"question"` for an `ask_user` call, `"plan"` for a `create_artifact` call with a plan that
 * parses; `undefined` otherwise (the message keeps its type).
 */
export function modeMessageType(
  message: AssistantMessage,
  tools: readonly Tool[],
  plans: PlanReader,
): MessageType | undefined {
  let type: MessageType | undefined;
  for (const part of message.content) {
    if (part.type !== "tool_call") continue;
    if (part.name === ASK_USER && offersModeTool(tools, ASK_USER)) return "question";
    if (part.name === CREATE_ARTIFACT && offersModeTool(tools, CREATE_ARTIFACT)) {
      const args = argsOf(part.args) as { kind?: unknown; content?: unknown } | undefined;
      if (
        args?.kind === "plan" &&
        typeof args.content === "string" &&
        args.content.length <= MAX_ARTIFACT_CHARS &&
        plans.read(args.content).ok
      )
        type = "plan";
    }
  }
  return type;
}

/** Arguments as an object (providers may hand them over as a JSON string). */
export function argsOf(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return undefined;
  }
}

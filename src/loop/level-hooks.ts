import type { GuardInput, GuardOutput, StepRecord, StepSettings } from "../contracts/hooks.js";
import type { AssistantMessage, Message } from "../contracts/message.js";
import type { Level, StepCall } from "./level.js";
import { callHook, failTurn, guardedInput, stepCall, stepInfo, withTurnInfo } from "./turn-hooks.js";

/** What a guardrail hook decided; `undefined` from the functions below when it failed (the turn then stops). */
export type Verdict = { kind: "pass" } | { kind: "block"; reason: string } | { kind: "replace"; text: string };

/** A guard's verdict that lets the input or answer through. */
export const PASS: Verdict = { kind: "pass" };

/** The level's own model call, as a step with no `prepareStep` gets it (made once per level). */
export function ownCall(level: Level): StepCall {
  return (level.ownCall ??= {
    model: level.turn.model,
    system: level.systemPrompt,
    messages: undefined,
    tools: level.modelTools,
    toolChoice: undefined,
  });
}

/** What the next model call of `level` gets: its own, or what the host's `prepareStep` made of it. */
export async function prepareStep(
  level: Level,
  iteration: number,
  history: readonly Message[],
  steps: readonly StepRecord[],
): Promise<StepCall | undefined> {
  const hooks = level.turn.hooks;
  if (!hooks?.prepareStep) return ownCall(level);
  const info = stepInfo(level, iteration, history, steps);
  const called = await callHook<StepSettings | void>(level.turn, "prepareStep", () => hooks.prepareStep!(info));
  return called.ok ? stepCall(level, called.value) : undefined;
}

/** Whether the host's `stopWhen` ends the level after the step that just finished (false without one). */
export async function stopWhen(
  level: Level,
  iteration: number,
  history: readonly Message[],
  steps: readonly StepRecord[],
): Promise<boolean | undefined> {
  const hooks = level.turn.hooks;
  if (!hooks?.stopWhen) return false;
  const info = stepInfo(level, iteration, history, steps);
  const called = await callHook(level.turn, "stopWhen", () => hooks.stopWhen!(info));
  return called.ok ? called.value === true : undefined;
}

/** The host's `guardInput` on the message that starts the run (none: the history does not end with one). */
export async function guardInput(level: Level, history: readonly Message[]): Promise<Verdict | undefined> {
  const hooks = level.turn.hooks;
  const input = guardedInput(history);
  if (!hooks?.guardInput || !input) return PASS;
  const guard = withTurnInfo<GuardInput<unknown>>({ content: input.content }, level.turn.info);
  const called = await callHook(level.turn, "guardInput", () => hooks.guardInput!(guard));
  if (!called.ok) return undefined;
  return verdictOf(level, "guardInput", called.value, false);
}

/** The host's `guardOutput` on the answer the level the loop was called for is about to end with. */
export async function guardOutput(level: Level, text: () => string): Promise<Verdict | undefined> {
  const hooks = level.turn.hooks;
  if (!hooks?.guardOutput || !level.entry) return PASS;
  const output = withTurnInfo<GuardOutput<unknown>>({ text: text() }, level.turn.info);
  const called = await callHook(level.turn, "guardOutput", () => hooks.guardOutput!(output));
  if (!called.ok) return undefined;
  return verdictOf(level, "guardOutput", called.value, true);
}

/** A guard's return value as a verdict; anything else fails the turn (the host's hook is wrong). */
function verdictOf(
  level: Level,
  hook: "guardInput" | "guardOutput",
  value: unknown,
  canReplace: boolean,
): Verdict | undefined {
  if (value === undefined || value === null) return PASS;
  if (typeof value === "object" && "block" in value) return { kind: "block", reason: String(value.block) };
  if (canReplace && typeof value === "object" && "replace" in value && typeof value.replace === "string")
    return { kind: "replace", text: value.replace };
  failTurn(
    level.turn,
    hook,
    new Error(`it must return ${canReplace ? "{ block }, { replace: string }" : "{ block }"} or nothing`),
  );
  return undefined;
}

/** `message` with its text parts replaced by one part holding `text` (other parts kept, in place of the first text). */
export function withText(message: AssistantMessage, text: string): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  let placed = false;
  for (const part of message.content) {
    if (part.type !== "text") content.push(part);
    else if (!placed) {
      content.push({ type: "text", text });
      placed = true;
    }
  }
  if (!placed) content.push({ type: "text", text });
  return { ...message, content };
}

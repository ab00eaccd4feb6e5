import { z } from "zod";
import { hasControlCharacter } from "../internal/control-characters.js";
import { compileGlobs, MAX_GLOB_ALTERNATIVES } from "../internal/glob.js";
import type { BudgetLimits } from "../contracts/budget.js";
import { roles } from "../modes/roles.js";
import type { AnyZodSchema } from "../contracts/json-schema.js";

// Written with APIs that zod 3.25 and zod 4 share (the peer range is `^3.25 || ^4`): messages
// are passed as strings, refinements are static.

/** What an `agentId` must match: 1 to 64 letters, digits, `_`, `.` or `-` (like tool names). */
export const AGENT_ID_PATTERN: RegExp = /^[a-zA-Z0-9_.-]{1,64}$/;

/** Longest glob pattern accepted in an agent definition, in characters. */
export const MAX_GLOB_LENGTH = 256;

/** The keys of `BudgetLimits`, in declaration order: the only keys a `budget` may have. */
export const BUDGET_KEYS = [
  "maxDepth",
  "maxIterationsPerLevel",
  "maxParallelPerTurn",
  "maxTotalSubtasks",
  "maxTotalLlmCalls",
  "maxTotalToolCalls",
  "maxWallClockMs",
  "maxToolResultBytes",
  "maxHistoryTokens",
  "maxTotalTokens",
  "maxCostUsd",
  "maxTotalResultBytes",
] as const satisfies readonly (keyof BudgetLimits)[];

// Compile-time check: BUDGET_KEYS lists every key of BudgetLimits.
type MissingBudgetKey = Exclude<keyof BudgetLimits, (typeof BUDGET_KEYS)[number]>;
const _budgetKeysComplete: [MissingBudgetKey] extends [never] ? true : MissingBudgetKey = true;

const ROLE_NAMES = Object.keys(roles);
const ROLE_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

const compiles = (pattern: string): boolean => {
  try {
    compileGlobs([pattern]);
    return true;
  } catch {
    return false;
  }
};

/** Deepest nesting accepted in `chat.providerOptions` (configuration, not data: a bound against hostile input). */
export const MAX_PROVIDER_OPTIONS_DEPTH = 32;

/**
 * True for plain JSON data (null, booleans, strings, finite numbers, arrays, plain objects), at most `depth` levels
 * deep.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth <= 0) return false;
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth - 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((item) => isPlainJson(item, depth - 1));
}

/** Builds the agent definition schema; zod schemas are built on first use, not at import (cold start). */
function buildAgentDefinitionSchema() {
  // Names, ids and capabilities never hold control characters, and a leading "!" would be matched
  // literally (negation is off so a denylist entry can never mean "everything but"): both are typos.
  const glob = z
    .string()
    .min(1, "must not be empty")
    .max(MAX_GLOB_LENGTH, `must be at most ${MAX_GLOB_LENGTH} characters`)
    .refine((p) => p.trim() === p, "must not start or end with whitespace")
    .refine((p) => !hasControlCharacter(p), "must not contain control characters (such as NUL or a newline)")
    .refine(
      (p) => !p.startsWith("!"),
      'negation ("!") is not supported: put the pattern in the matching denylist instead',
    )
    .refine(
      compiles,
      `is not a valid glob pattern: brace ranges such as {1..9} are not supported, and {a,b} groups may expand to at most ${MAX_GLOB_ALTERNATIVES} alternatives`,
    );

  const globList = z.array(glob).nullable().optional();

  const limit = z.number().min(0, "must be a non-negative number").refine(Number.isFinite, "must be a finite number");
  const budgetShape = Object.fromEntries(
    BUDGET_KEYS.map((key) => [
      key,
      (key === "maxParallelPerTurn" ? limit.refine((n) => n >= 1, "must be at least 1") : limit).nullable().optional(),
    ]),
  ) as Record<(typeof BUDGET_KEYS)[number], z.ZodOptional<z.ZodNullable<typeof limit>>>;

  const definition = z
    .object({
      agentId: z.string().regex(AGENT_ID_PATTERN, 'must be 1-64 letters, digits, "_", "." or "-"'),
      displayName: z.string().refine((s) => s.trim() !== "", "must not be empty"),
      description: z.string().nullable().optional(),
      systemPrompt: z.string().nullable().optional(),
      type: z.enum(["chat", "external"]).nullable().optional(),
      chat: z
        .object({
          provider: z.string().min(1, "must not be empty").nullable().optional(),
          model: z.string().min(1, "must not be empty").nullable().optional(),
          temperature: z
            .number()
            .refine(Number.isFinite, "must be a finite number")
            .refine((n) => n >= 0 && n <= 2, "must be between 0 and 2")
            .nullable()
            .optional(),
          maxOutputTokens: z
            .number()
            .refine((n) => Number.isSafeInteger(n) && n > 0, "must be a positive whole number")
            .nullable()
            .optional(),
          providerOptions: z
            .record(z.string(), z.unknown())
            .refine(
              (o) => isPlainJson(o, MAX_PROVIDER_OPTIONS_DEPTH),
              `must be a JSON object (strings, finite numbers, booleans, null, arrays and plain objects, at most ${MAX_PROVIDER_OPTIONS_DEPTH} levels deep)`,
            )
            .nullable()
            .optional(),
        })
        .strict()
        .nullable()
        .optional(),
      toolAllowlist: globList,
      toolDenylist: globList,
      toolExposure: z.enum(["tools", "skills", "mixed"]).nullable().optional(),
      skillAllowlist: globList,
      skillDenylist: globList,
      capabilityAllowlist: globList,
      capabilityDenylist: globList,
      agentAllowlist: globList,
      agentDenylist: globList,
      uiVisible: z.boolean().nullable().optional(),
      apiExposed: z.boolean().nullable().optional(),
      // Any role name: host roles are known to the runtime (`createAgentRuntime({ roles })`), which
      // rejects an agent whose role it does not know.
      role: z
        .string()
        .regex(
          ROLE_NAME_PATTERN,
          `must be a role name (the presets ${ROLE_NAMES.map((r) => `"${r}"`).join(", ")}, or a host role): 1 to 64 letters, digits, "_", "." or "-"`,
        )
        .nullable()
        .optional(),
      budget: z.object(budgetShape).strict().nullable().optional(),
    })
    .strict();

  return definition;
}

let built: ReturnType<typeof buildAgentDefinitionSchema> | undefined;

/**
 * The typed zod schema behind {@link agentDefinitionSchema}, built once on first use, for this
 * package's own use: its declared type names zod 4 classes, which a zod 3.25 install does not have.
 * @internal
 */
export function agentDefinitionZodSchema(): ReturnType<typeof buildAgentDefinitionSchema> {
  return (built ??= buildAgentDefinitionSchema());
}

/** The keys an object at this place of an agent definition may have, for "unknown key" problems. */
export function allowedKeys(parent: "agent" | "chat" | "budget"): readonly string[] {
  if (parent === "chat") return ["provider", "model", "temperature", "maxOutputTokens", "providerOptions"];
  if (parent === "budget") return BUDGET_KEYS;
  return Object.keys(agentDefinitionZodSchema().shape);
}

/**
 * The zod schema of one agent definition as written in configuration, where `null`
 * stands for an unset optional field. Unknown keys are problems (typo safety), at the top level
 * and inside `chat` and `budget`. `parseAgentDefinition` and `createAgentRegistry` use it and
 * then drop the `null`s; use it directly for form validation, or with `toJsonSchema` to publish
 * a JSON Schema of your configuration file.
 *
 * Built from the zod the application installed (3.25 or 4); typed as {@link AnyZodSchema} so the
 * declaration does not depend on which. A `z.lazy` schema: the schema behind it is built on first
 * use, so importing the package builds no zod schema.
 */
export const agentDefinitionSchema: AnyZodSchema = z.lazy(() => agentDefinitionZodSchema());

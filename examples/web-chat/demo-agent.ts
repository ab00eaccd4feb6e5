/**
 * The web chat's agent: its tools and the scripted model that drives it offline.
 *
 * `ask_user` and `submit_plan` are host tools that wait for the person through durable
 * approvals (the runtime suspends the turn until `resolveApproval`), so the page can show a
 * question and a plan review today. When the runtime emits its own `question` / `plan_ready`
 * events, the page renders those the same way.
 */
import { z } from "zod";
import { defineTool, ProviderError, type ModelRequest, type Tool } from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";

const findings: Record<string, string> = {
  lisbon: "Lisbon: 24 °C and sunny, flights from 89 €.",
  oslo: "Oslo: 9 °C with showers, flights from 140 €.",
  kyoto: "Kyoto: 18 °C, partly cloudy, flights from 610 €.",
};

/** Answers given on the page, by the `ask_user` call they answer (kept in memory: a demo). */
export type Answers = Map<string, string>;

export function demoTools(answers: Answers): Tool[] {
  const lookup = defineTool({
    name: "lookup_city",
    description: "Weather and flight prices for a city this weekend.",
    input: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return findings[city.toLowerCase()] ?? `${city}: no data.`;
    },
  });
  const deleteDraft = defineTool({
    name: "delete_draft",
    description: "Delete an old draft file. Needs the user's approval.",
    input: z.object({ file: z.string() }),
    permissionClass: "workspace_write",
    requiresApproval: true,
    execute: ({ file }) => `deleted ${file}`,
  });
  const askUser = defineTool({
    name: "ask_user",
    description: "Ask the user a question with options and wait for the answer.",
    input: z.object({
      question: z.string(),
      severity: z.enum(["critical", "major", "minor"]).default("major"),
      options: z.array(z.object({ label: z.string(), value: z.string(), description: z.string().optional() })).min(1),
    }),
    requiresApproval: true,
    execute: (_args, ctx) => `The user answered: ${answers.get(ctx.toolCallId) ?? "(no answer)"}`,
  });
  const submitPlan = defineTool({
    name: "submit_plan",
    description: "Submit a plan for the user's review. Returns whether it was approved.",
    input: z.object({
      goal: z.string(),
      steps: z.array(z.object({ step_number: z.number(), action: z.string(), reason: z.string().optional() })).min(1),
      risks: z.array(z.string()).optional(),
    }),
    requiresApproval: true,
    execute: () => "The user approved the plan. Carry it out.",
  });
  return [lookup, deleteDraft, askUser, submitPlan];
}

const isChild = (request: ModelRequest) => request.system.startsWith("You are a sub-agent");
const lastToolNames = (request: ModelRequest): string[] => {
  const last = request.messages.at(-1);
  return last?.role === "tool" ? last.content.map((part) => part.name) : [];
};
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

/** The offline model: fans out into three sub-tasks, asks a question, submits a plan, answers. */
export function scriptedProvider() {
  const script = (request: ModelRequest): FakeTurn => {
    if (isChild(request)) {
      const city = textOf(request.messages[0]?.content).replace(/^Research /, "");
      if (request.messages.length === 1) {
        const calls: FakeTurn["toolCalls"] = [{ name: "lookup_city", args: { city } }];
        if (city === "Oslo") calls.push({ name: "delete_draft", args: { file: "oslo-old-draft.md" } });
        return { text: `Looking up ${city}. `, toolCalls: calls, delayMs: 120 };
      }
      const tool = request.messages.at(-1);
      const found = tool?.role === "tool" ? textOf(tool.content[0]?.result) : "";
      return { text: found, delayMs: 80 };
    }
    const names = lastToolNames(request);
    const last = request.messages.at(-1);
    if (last?.role === "user") {
      if (/\bfail\b/i.test(textOf(last.content))) return { text: "Let me try… ", error: new ProviderError("The model provider is overloaded (scripted failure)", { provider: "scripted", status: 529, retryable: true }) };
      return {
        thinking: "Three independent cities: research them in parallel.",
        text: "I'll research the three cities in parallel, then check with you before writing the report.",
        toolCalls: ["Lisbon", "Oslo", "Kyoto"].map((city) => ({ name: "run_subtask", args: { title: `Research ${city}`, instructions: `Research ${city}` } })),
        delayMs: 200,
      };
    }
    if (names.includes("run_subtask")) {
      return {
        text: "All three are in. One question before I plan the report.",
        toolCalls: [
          {
            name: "ask_user",
            args: {
              question: "Which format should the report use?",
              severity: "major",
              options: [
                { label: "Short summary", value: "summary", description: "Five lines" },
                { label: "Detailed table", value: "table" },
              ],
            },
          },
        ],
      };
    }
    if (names.includes("ask_user")) {
      return {
        text: "Here is my plan.",
        toolCalls: [
          {
            name: "submit_plan",
            args: {
              goal: "Recommend a weekend city trip",
              steps: [
                { step_number: 1, action: "Compare weather and prices", reason: "the two things that were asked" },
                { step_number: 2, action: "Write the report in the chosen format" },
              ],
              risks: ["Prices change daily"],
            },
          },
        ],
      };
    }
    return { text: "Done. Lisbon wins: the warmest weather (24 °C, sunny) and the cheapest flights (from 89 €). Oslo is wet, Kyoto is far.", delayMs: 100 };
  };
  return createFakeProvider(script, { record: false });
}

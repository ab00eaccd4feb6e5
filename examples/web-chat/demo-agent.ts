/**
 * The web chat's agent: its tools and the scripted model that drives it offline.
 *
 * Every request becomes a task (`runtime.tasks`): the planner (read-only) submits a plan with the
 * runtime's `create_artifact`; once the person approves it on the page, the actor researches the
 * cities in parallel sub-tasks (one of them deletes an old draft, which needs an approval), asks
 * which report format to use with the runtime's `ask_user`, and answers.
 */
import { z } from "zod";
import { defineTool, ProviderError, type ModelRequest, type Tool } from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";

const findings: Record<string, string> = {
  lisbon: "Lisbon: 24 °C and sunny, flights from 89 €.",
  oslo: "Oslo: 9 °C with showers, flights from 140 €.",
  kyoto: "Kyoto: 18 °C, partly cloudy, flights from 610 €.",
};

export function demoTools(): Tool[] {
  const lookup = defineTool({
    name: "lookup_city",
    description: "Weather and flight prices for a city this weekend.",
    input: z.object({ city: z.string() }),
    // Declared read-only, so the planner may use it too.
    permissionClass: "safe",
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
  return [lookup, deleteDraft];
}

const CITIES = ["Lisbon", "Oslo", "Kyoto"];
const isChild = (request: ModelRequest) => (request.caller?.depth ?? 0) > 0;
const isPlanner = (request: ModelRequest) => request.caller?.role === "planner";
const lastToolNames = (request: ModelRequest): string[] => {
  const last = request.messages.at(-1);
  return last?.role === "tool" ? last.content.map((part) => part.name) : [];
};
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

const plan = (revised: boolean) =>
  JSON.stringify({
    type: "plan",
    format_version: "1.0",
    goal: "Recommend a weekend city trip",
    steps: [
      {
        step_number: 1,
        action: "Research Lisbon, Oslo and Kyoto in parallel",
        reason: "weather and flight prices for each",
        tools_needed: ["run_subtask", "lookup_city"],
      },
      { step_number: 2, action: "Ask which report format you prefer" },
      {
        step_number: 3,
        action: revised
          ? "Ask before removing the old Oslo draft, then write the report"
          : "Remove the old Oslo draft and write the report",
      },
    ],
    risks: ["Prices change daily"],
  });

/** The offline model: plans, then fans out into three sub-tasks, asks a question and answers. */
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
    if (isPlanner(request)) {
      if (names.includes("create_artifact")) return { text: "I submitted the plan for your review." };
      if (last?.role === "user" && /\bfail\b/i.test(textOf(last.content))) {
        return {
          text: "Let me try… ",
          error: new ProviderError("The model provider is overloaded (scripted failure)", {
            provider: "scripted",
            status: 529,
            retryable: true,
          }),
        };
      }
      const revised = request.messages.some(
        (m) => m.role === "user" && textOf(m.content).startsWith("Revise the plan"),
      );
      return {
        thinking: "Three independent cities: research them in parallel once the plan is approved.",
        text: "Here is how I would go about it.",
        toolCalls: [{ name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: plan(revised) } }],
        delayMs: 150,
      };
    }
    if (names.includes("run_subtask")) {
      return {
        text: "All three are in. One question before I write the report.",
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
        text: "Done. Lisbon wins: the warmest weather (24 °C, sunny) and the cheapest flights (from 89 €). Oslo is wet, Kyoto is far.",
        delayMs: 100,
      };
    }
    if (last?.role === "user") {
      if (/^The plan is approved/.test(textOf(last.content))) {
        return {
          text: "Plan approved: researching the three cities in parallel.",
          toolCalls: CITIES.map((city) => ({
            name: "run_subtask",
            args: { title: `Research ${city}`, instructions: `Research ${city}` },
          })),
          delayMs: 200,
        };
      }
      return { text: "Anything else? Start a new chat for another trip.", delayMs: 50 };
    }
    return { text: "Done.", delayMs: 50 };
  };
  return createFakeProvider(script, { record: false });
}

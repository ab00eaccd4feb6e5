/**
 * Quickstart: an agent with a tool that splits its work into parallel sub-tasks.
 *
 * Runs offline on the bundled scripted provider. With OPENAI_API_KEY or OPENAI_BASE_URL set it
 * uses `openai()` (OPENAI_MODEL, default gpt-4.1-mini); with ANTHROPIC_API_KEY, `anthropic()`
 * (ANTHROPIC_MODEL, default claude-sonnet-4-5).
 *
 *   npm start
 */
import { z } from "zod";
import { defaultPolicy, defineTool, runUnifiedAgentLoop, type ModelRequest, type Provider } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import { createFakeProvider, formatEvent } from "@agentry/core/testing";

// A tool: typed arguments from the zod schema, validated before execute.
const forecasts: Record<string, { sky: string; highC: number }> = {
  lisbon: { sky: "sunny", highC: 24 },
  oslo: { sky: "rain showers", highC: 9 },
  kyoto: { sky: "partly cloudy", highC: 18 },
};
const getWeather = defineTool({
  name: "get_weather",
  description: "Weekend weather forecast for a city.",
  input: z.object({ city: z.string().describe("City name, e.g. Lisbon") }),
  permissionClass: "network",
  execute: ({ city }) => forecasts[city.toLowerCase()] ?? { sky: "unknown", highC: null },
});

/** The offline model: the root splits the question into one sub-task per city, each child calls the tool. */
function scriptedModel(): Provider {
  const cityOf = (request: ModelRequest) => {
    const first = request.messages[0];
    return (typeof first?.content === "string" && first.content.match(/in (\w+)/)?.[1]) || "?";
  };
  return createFakeProvider((request) => {
    const last = request.messages[request.messages.length - 1]!;
    // `caller` says who asks: depth 1 is a sub-task (its title is in `caller.subtaskTitle`).
    if (request.caller?.depth === 1) {
      if (last.role === "user") return { toolCalls: [{ name: "get_weather", args: { city: cityOf(request) } }] };
      const result = last.role === "tool" ? (last.content[0]?.result as { sky: string; highC: number }) : undefined;
      return { text: `${cityOf(request)}: ${result?.sky}, high of ${result?.highC} °C.` };
    }
    if (last.role === "user") {
      return {
        thinking: "Two cities to check; I will look them up in parallel.",
        toolCalls: ["Lisbon", "Oslo"].map((city) => ({
          name: "run_subtask",
          args: {
            title: `Weather in ${city}`,
            instructions: `Get the weekend forecast in ${city} and summarise it in one line.`,
          },
        })),
        usage: { inputTokens: 180, outputTokens: 60 },
      };
    }
    return {
      text: "Go to Lisbon: sunny and 24 °C, while Oslo expects rain showers and 9 °C.",
      usage: { inputTokens: 260, outputTokens: 25 },
    };
  });
}

function pickProvider(): { provider: Provider; model: string; label: string } {
  const env = globalThis.process?.env ?? {};
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    const model = env.OPENAI_MODEL ?? "gpt-4.1-mini";
    return {
      provider: openai(),
      model,
      label: `openai() at ${env.OPENAI_BASE_URL ?? "https://api.openai.com/v1"}, model ${model}`,
    };
  }
  if (env.ANTHROPIC_API_KEY) {
    const model = env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5";
    return { provider: anthropic(), model, label: `anthropic(), model ${model}` };
  }
  return {
    provider: scriptedModel(),
    model: "scripted",
    label:
      "the bundled scripted provider (offline; set OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY for a real model)",
  };
}

const { provider, model, label } = pickProvider();
console.log(`Using ${label}.\n`);
const question = "Should I spend the weekend in Lisbon or Oslo? Check the weather in both.";
console.log(`user: ${question}\n`);

let streaming = false;
let thinking = false;
const titles = new Map<string, string>(); // run_subtask id → title, to label the nested lines
for await (const event of runUnifiedAgentLoop({
  provider,
  model,
  systemPrompt:
    "You are a travel assistant. Use sub-tasks to check each city in parallel, then recommend one in a sentence.",
  history: [{ role: "user", content: question }],
  tools: [getWeather],
  policy: defaultPolicy("thread"),
  budget: { maxTotalLlmCalls: 12, maxWallClockMs: 60_000 },
})) {
  if (event.type === "chunk" && event.depth === 0) {
    if (!streaming && event.content) process.stdout.write("assistant: ");
    streaming = !event.done;
    process.stdout.write(event.done ? "\n" : event.content);
    continue;
  }
  if (event.type === "thinking" && event.depth === 0) {
    if (!thinking) process.stdout.write("(thinking) ");
    thinking = true;
    process.stdout.write(event.content);
    continue;
  }
  if (thinking) process.stdout.write("\n");
  thinking = false;
  if (event.type === "tool_call_update" && event.status === "start" && event.name === "run_subtask") {
    titles.set(event.toolCallId, (event.args as { title?: string }).title ?? event.toolCallId);
  }
  const line = formatEvent(event);
  if (line) console.log(event.parentId ? line.replace(/^(\s*)/, `$1[${titles.get(event.parentId)}] `) : line);
  if (event.type === "done") {
    const { usage, executionTree } = event.result;
    console.log(
      `\n${usage.llmCalls} model calls, ${usage.toolCalls} tool calls, ${usage.inputTokens} input / ${usage.outputTokens} output tokens, ${executionTree.nodes.length} nodes in the execution tree.`,
    );
    if (event.result.status !== "complete") process.exitCode = 1;
  }
}

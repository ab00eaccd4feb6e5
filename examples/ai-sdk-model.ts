/**
 * Bring your own model: any AI SDK language model as an Agentry provider, through `fromAiSdk`.
 *
 * Uses the real `@ai-sdk/openai` package. With OPENAI_API_KEY set it talks to OpenAI
 * (OPENAI_MODEL, default gpt-4.1-mini); otherwise it points the same AI SDK model at Agentry's
 * fake OpenAI server on 127.0.0.1, so it runs offline with real HTTP and real SSE.
 *
 *   npx tsx --tsconfig tsconfig.tests.json examples/ai-sdk-model.ts
 */
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, defineTool, MemorySessionStore } from "@agentry/core";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { createFakeOpenAIServer, type FakeServer } from "@agentry/core/testing";

const getWeather = defineTool({
  name: "get_weather",
  description: "Current weather for a city.",
  input: z.object({ city: z.string() }),
  permissionClass: "network",
  execute: ({ city }) => ({ city, sky: city.toLowerCase() === "lisbon" ? "sunny" : "cloudy", tempC: 21 }),
});

async function main() {
  const env = globalThis.process?.env ?? {};
  let server: FakeServer | undefined;
  let openaiProvider: ReturnType<typeof createOpenAI>;
  if (env.OPENAI_API_KEY) {
    openaiProvider = createOpenAI({ apiKey: env.OPENAI_API_KEY });
    console.log("Using OpenAI through @ai-sdk/openai.");
  } else {
    // A model that asks for the tool, then answers with what it returned.
    server = await createFakeOpenAIServer((request) => {
      const last = request.messages[request.messages.length - 1]!;
      if (last.role === "tool") {
        // Over the wire a tool result is text: JSON here.
        const raw = last.content[0]?.result;
        const weather = (typeof raw === "string" ? JSON.parse(raw) : raw) as {
          city: string;
          sky: string;
          tempC: number;
        };
        return {
          text: `It is ${weather.sky} in ${weather.city}, ${weather.tempC} °C.`,
          usage: { inputTokens: 90, outputTokens: 12 },
        };
      }
      return {
        toolCalls: [{ name: "get_weather", args: { city: "Lisbon" } }],
        usage: { inputTokens: 60, outputTokens: 15 },
      };
    });
    openaiProvider = createOpenAI({ baseURL: server.baseURL, apiKey: "offline" });
    console.log("Using @ai-sdk/openai against the local fake OpenAI server (offline).");
  }

  // The AI SDK model (its Chat Completions model here) becomes an Agentry provider.
  const model = env.OPENAI_MODEL ?? "gpt-4.1-mini";
  const provider = fromAiSdk(openaiProvider.chat(model));

  const runtime = createAgentRuntime({
    registry: createAgentRegistry([
      {
        agentId: "weather",
        displayName: "Weather",
        systemPrompt: "Answer weather questions with the get_weather tool.",
        chat: { model, temperature: 0.2, maxOutputTokens: 300 },
      },
    ]),
    store: new MemorySessionStore(),
    providers: { openai: provider },
    tools: [getWeather],
  });

  try {
    for await (const event of runtime.stream({ agentId: "weather", content: "What's the weather in Lisbon?" })) {
      if (event.type === "tool_call_update" && event.status === "start")
        console.log(`→ ${event.name}(${JSON.stringify(event.args)})`);
      if (event.type === "tool_call_update" && event.status === "end")
        console.log(`← ${event.name} ${JSON.stringify(event.result)}`);
      if (event.type === "done") {
        console.log(`assistant: ${event.result.text}`);
        console.log(
          `done: ${event.result.status} (${event.result.usage.llmCalls} model calls, ${event.result.usage.inputTokens} in / ${event.result.usage.outputTokens} out tokens, provider ${provider.id})`,
        );
      }
    }
    if (server) {
      const sent = server.requests[0] as { temperature?: number; max_tokens?: number };
      console.log(`request settings: temperature ${sent.temperature}, max_tokens ${sent.max_tokens}`);
    }
  } finally {
    await runtime.close();
    await server?.close();
  }
}

await main();

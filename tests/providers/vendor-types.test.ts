import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import type { Message, ModelRequest, Provider, ToolChoice } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const scratch = `${repo}.vendor-types-check/`;

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A conversation with every kind of part the adapters send. */
const conversation: Message[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is in these?" },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "file", mediaType: "application/pdf", filename: "a.pdf", source: { type: "data", data: "JVBERi0=" } },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "thinking", text: "Let me look.", signature: "sig-1" },
      { type: "text", text: "Looking." },
      { type: "tool_call", id: "call_1", name: "orders.lookup", args: { orderId: "42" } },
      { type: "tool_call", id: "call_2", name: "screenshot", args: {} },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool_result", toolCallId: "call_1", name: "orders.lookup", result: { status: "shipped" } },
      {
        type: "tool_result",
        toolCallId: "call_2",
        name: "screenshot",
        result: {
          type: "content",
          parts: [
            { type: "text", text: "the page" },
            { type: "image", mediaType: "image/png", data: PNG },
          ],
        },
      },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "It shipped." }] },
  { role: "user", content: "And the refund?" },
];

const tools: ModelRequest["tools"] = [
  {
    name: "orders.lookup",
    description: "Find an order",
    inputSchema: { type: "object", properties: { orderId: { type: "string" } } },
  },
  { name: "screenshot", description: "Take a screenshot", inputSchema: { type: "object", properties: {} } },
];

const requests = (["auto", "required", "none", { name: "orders.lookup" }] as ToolChoice[]).map(
  (toolChoice): ModelRequest => ({
    model: "m",
    system: "Be brief.",
    messages: conversation,
    tools,
    toolChoice,
    maxOutputTokens: 512,
    temperature: 0.2,
  }),
);

/** The JSON bodies a provider POSTs for `requests` (its fetch records them and answers 400). */
async function bodiesOf(make: (fetch: typeof globalThis.fetch) => Provider): Promise<unknown[]> {
  const bodies: unknown[] = [];
  const provider = make((_url, init) => {
    bodies.push(JSON.parse(typeof init?.body === "string" ? init.body : "null"));
    return Promise.resolve(new Response(JSON.stringify({ error: { message: "recorded" } }), { status: 400 }));
  });
  for (const request of requests) {
    try {
      for await (const event of provider.stream(request, { signal: new AbortController().signal })) void event;
    } catch {
      // The 400 ends each call once its body is recorded.
    }
  }
  return bodies;
}

describe("request bodies against the vendors' own SDK types (openai, @anthropic-ai/sdk)", () => {
  afterAll(() => process.env.KEEP_VENDOR_TYPES || rmSync(scratch, { recursive: true, force: true }));

  it("every body compiles as the vendor's streaming create params (object literals: no field the API does not take)", async () => {
    const chat = await bodiesOf((fetch) => openai({ apiKey: "k", fetch, maxRetries: 0 }));
    const responses = await bodiesOf((fetch) => openai({ apiKey: "k", fetch, maxRetries: 0, api: "responses" }));
    const messages = await bodiesOf((fetch) => anthropic({ apiKey: "k", fetch, maxRetries: 0 }));
    expect([chat.length, responses.length, messages.length]).toEqual([4, 4, 4]);
    const literal = (name: string, type: string, bodies: unknown[]) =>
      bodies.map((body, i) => `export const ${name}${i}: ${type} = ${JSON.stringify(body, null, 1)};`).join("\n");
    const source = [
      'import type OpenAI from "openai";',
      'import type Anthropic from "@anthropic-ai/sdk";',
      literal("chat", "OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming", chat),
      literal("responses", "OpenAI.Responses.ResponseCreateParamsStreaming", responses),
      literal("messages", "Anthropic.Messages.MessageCreateParamsStreaming", messages),
    ].join("\n");
    mkdirSync(scratch, { recursive: true });
    const file = `${scratch}bodies.ts`;
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      const line = where && d.file ? d.file.text.split("\n")[where.line]?.trim() : "";
      return `${ts.flattenDiagnosticMessageText(d.messageText, " ")} (at: ${line})`;
    });
    expect(problems).toEqual([]);
  }, 60_000);

  it("a temperature Anthropic no longer takes is not sent, with one warning per provider", async () => {
    const messages = await bodiesOf((fetch) => anthropic({ apiKey: "k", fetch, maxRetries: 0 }));
    expect(messages.every((body) => !("temperature" in (body as object)))).toBe(true);
    const provider = anthropic({
      apiKey: "k",
      maxRetries: 0,
      fetch: () => Promise.resolve(new Response("{}", { status: 400 })),
    });
    const warnings: unknown[] = [];
    for (const request of requests.slice(0, 2)) {
      try {
        for await (const event of provider.stream(request, { signal: new AbortController().signal }))
          if (event.type === "warning") warnings.push(event);
      } catch {
        // the 400
      }
    }
    expect(warnings).toEqual([expect.objectContaining({ type: "warning", code: "temperature_not_sent" })]);
  });
});

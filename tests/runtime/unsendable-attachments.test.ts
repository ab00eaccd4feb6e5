import { afterEach, describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  createAgentRuntime,
  MemorySessionStore,
  type FilePart,
  type Provider,
} from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeResponsesServer,
  type FakeServer,
} from "@agentry/core/testing";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const docx: FilePart = {
  type: "file",
  mediaType: DOCX,
  filename: "report.docx",
  source: { type: "data", data: "UEsDBA==" },
};
const pdfByUrl: FilePart = {
  type: "file",
  mediaType: "application/pdf",
  filename: "a.pdf",
  source: { type: "url", url: "https://x.test/a.pdf" },
};

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

type Adapter = [name: string, start: () => Promise<FakeServer>, make: (baseURL: string) => Provider, file: FilePart];
const adapters: Adapter[] = [
  [
    "OpenAI chat, a .docx",
    () => createFakeOpenAIServer(() => ({ text: "ok" })),
    (baseURL) => openai({ apiKey: "k", baseURL, maxRetries: 0 }),
    docx,
  ],
  [
    "OpenAI chat, a PDF by URL",
    () => createFakeOpenAIServer(() => ({ text: "ok" })),
    (baseURL) => openai({ apiKey: "k", baseURL, maxRetries: 0 }),
    pdfByUrl,
  ],
  [
    "Anthropic, a .docx",
    () => createFakeAnthropicServer(() => ({ text: "ok" })),
    (baseURL) => anthropic({ apiKey: "k", baseURL, maxRetries: 0 }),
    docx,
  ],
  [
    "OpenAI Responses, a .docx",
    () => createFakeResponsesServer(() => ({ text: "ok" })),
    (baseURL) => openai({ api: "responses", apiKey: "k", baseURL, maxRetries: 0 }),
    docx,
  ],
];

describe("an attachment the provider cannot take", () => {
  it.each(adapters)(
    "%s: goes as a note, and the session's next message still works",
    async (_name, start, make, file) => {
      const server = await start();
      servers.push(server);
      const runtime = createAgentRuntime({
        registry: createAgentRegistry([{ agentId: "helper", displayName: "Helper", systemPrompt: "You help." }]),
        store: new MemorySessionStore(),
        providers: { wire: make(server.baseURL) },
        defaultModel: "wire:model-1",
      });
      const first = await runtime.send({
        agentId: "helper",
        content: [{ type: "text", text: "Summarise this" }, file],
      });
      expect(first.error).toBeUndefined();
      expect(first.status).toBe("complete");
      const second = await runtime.send({ agentId: "helper", content: "and now?", session: first.sessionId });
      expect(second.status).toBe("complete");
      expect(server.requests).toHaveLength(2);
      for (const body of server.requests) {
        const text = JSON.stringify(body);
        expect(text).toContain(`[attachment ${file.filename} (${file.mediaType}) not sent: `);
        expect(text).not.toContain("UEsDBA==");
        expect(text).not.toContain("https://x.test/a.pdf");
      }
    },
  );
});

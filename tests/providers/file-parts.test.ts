import { describe, expect, it } from "vitest";
import { type FilePart, type Message } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import { collect, sseBody, textFetch } from "./helpers.js";

const PDF_BASE64 = "JVBERi0xLjQK";
const pdfBytes = Uint8Array.from(atob(PDF_BASE64), (c) => c.charCodeAt(0));
const ask = (...files: FilePart[]): Message[] => [
  { role: "user", content: [{ type: "text", text: "Summarise" }, ...files] },
];
const pdf = (source: FilePart["source"], filename?: string): FilePart => ({
  type: "file",
  mediaType: "application/pdf",
  source,
  ...(filename && { filename }),
});

const file = (mediaType: string, source: FilePart["source"]): FilePart => ({ type: "file", mediaType, source });

const openaiDone = sseBody(
  [{ object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }],
  { done: true },
);
const anthropicDone = sseBody(
  [
    { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 0 } } },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
    { type: "message_stop" },
  ],
  { eventNames: true },
);

async function openaiBody(messages: Message[]) {
  const fetch = textFetch(openaiDone);
  const result = await collect(openai({ apiKey: "k", fetch, maxRetries: 0 }), { messages });
  return {
    body: fetch.bodies[0] as { messages: { content: unknown }[] } | undefined,
    error: result.error,
    calls: fetch.bodies.length,
  };
}
async function anthropicBody(messages: Message[]) {
  const fetch = textFetch(anthropicDone);
  const result = await collect(anthropic({ apiKey: "k", fetch, maxRetries: 0 }), { messages });
  return {
    body: fetch.bodies[0] as { messages: { content: unknown }[] } | undefined,
    error: result.error,
    calls: fetch.bodies.length,
  };
}

describe("file parts on OpenAI Chat Completions", () => {
  it("sends a PDF as a file part: base64 or bytes as file_data with a filename, or a file id", async () => {
    const { body, error } = await openaiBody(
      ask(
        pdf({ type: "data", data: PDF_BASE64 }, "report.pdf"),
        pdf({ type: "data", data: pdfBytes }),
        pdf({ type: "file_id", fileId: "file-abc" }),
      ),
    );
    expect(error).toBeUndefined();
    expect(body!.messages[0]!.content).toEqual([
      { type: "text", text: "Summarise" },
      { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF_BASE64}` } },
      { type: "file", file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${PDF_BASE64}` } },
      { type: "file", file: { file_id: "file-abc" } },
    ]);
  });

  it("sends an image file as image_url (data or URL)", async () => {
    const { body } = await openaiBody(
      ask(
        { type: "file", mediaType: "image/png", source: { type: "data", data: "iVBORw0KGgo=" } },
        { type: "file", mediaType: "image/png", source: { type: "url", url: "https://x.test/a.png" } },
      ),
    );
    expect(body!.messages[0]!.content).toEqual([
      { type: "text", text: "Summarise" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      { type: "image_url", image_url: { url: "https://x.test/a.png" } },
    ]);
  });

  it.each([
    [
      "a PDF by URL",
      pdf({ type: "url", url: "https://x.test/a.pdf" }, "a.pdf"),
      "[attachment a.pdf (application/pdf) not sent: openai does not take this file by URL; attach its data instead]",
    ],
    [
      "a non-PDF document",
      file("text/csv", { type: "data", data: "YSxi" }),
      "[attachment (text/csv) not sent: openai does not take this file type]",
    ],
    [
      "an image by file id",
      file("image/png", { type: "file_id", fileId: "file-1" }),
      "[attachment (image/png) not sent: openai does not take this file by file id; attach its data instead]",
    ],
  ])("sends %s it cannot take as a text note in its place", async (_name, file, note) => {
    const { body, error } = await openaiBody(ask(file));
    expect(error).toBeUndefined();
    expect(body!.messages[0]!.content).toEqual([
      { type: "text", text: "Summarise" },
      { type: "text", text: note },
    ]);
  });
});

describe("file parts on Anthropic Messages", () => {
  it("sends a PDF as a document block: base64 (from text or bytes) with its title, or a URL", async () => {
    const { body, error } = await anthropicBody(
      ask(pdf({ type: "data", data: pdfBytes }, "report.pdf"), pdf({ type: "url", url: "https://x.test/a.pdf" })),
    );
    expect(error).toBeUndefined();
    expect(body!.messages[0]!.content).toEqual([
      { type: "text", text: "Summarise" },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: PDF_BASE64 },
        title: "report.pdf",
      },
      { type: "document", source: { type: "url", url: "https://x.test/a.pdf" } },
    ]);
  });

  it("sends an image file as an image block", async () => {
    const { body } = await anthropicBody(
      ask({ type: "file", mediaType: "image/jpeg", source: { type: "url", url: "https://x.test/a.jpg" } }),
    );
    expect(body!.messages[0]!.content).toEqual([
      { type: "text", text: "Summarise" },
      { type: "image", source: { type: "url", url: "https://x.test/a.jpg" } },
    ]);
  });

  it.each([
    [
      "a non-PDF document",
      file("application/zip", { type: "data", data: "UEsDBA==" }),
      "[attachment (application/zip) not sent: anthropic does not take this file type]",
    ],
    [
      "a file id",
      pdf({ type: "file_id", fileId: "file_011" }),
      "[attachment (application/pdf) not sent: anthropic does not take this file by file id; attach its data instead]",
    ],
  ])("sends %s it cannot take as a text note in its place", async (_name, file, note) => {
    const { body, error } = await anthropicBody(ask(file));
    expect(error).toBeUndefined();
    expect(body!.messages[0]!.content).toEqual([
      { type: "text", text: "Summarise" },
      { type: "text", text: note },
    ]);
  });
});

const responsesDone = sseBody([{ type: "response.completed", response: { status: "completed" } }], {
  eventNames: true,
});
async function responsesBody(messages: Message[]) {
  const fetch = textFetch(responsesDone);
  const result = await collect(openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0 }), { messages });
  return {
    body: fetch.bodies[0] as { input: { content: unknown }[] } | undefined,
    error: result.error,
    calls: fetch.bodies.length,
  };
}

describe("file parts on the OpenAI Responses API", () => {
  it("sends a PDF as input_file: data with a filename, a URL or a file id", async () => {
    const { body, error } = await responsesBody(
      ask(
        pdf({ type: "data", data: pdfBytes }, "report.pdf"),
        pdf({ type: "data", data: PDF_BASE64 }),
        pdf({ type: "url", url: "https://x.test/a.pdf" }),
        pdf({ type: "file_id", fileId: "file-abc" }),
      ),
    );
    expect(error).toBeUndefined();
    expect(body!.input[0]!.content).toEqual([
      { type: "input_text", text: "Summarise" },
      { type: "input_file", filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF_BASE64}` },
      { type: "input_file", filename: "document.pdf", file_data: `data:application/pdf;base64,${PDF_BASE64}` },
      { type: "input_file", file_url: "https://x.test/a.pdf" },
      { type: "input_file", file_id: "file-abc" },
    ]);
  });

  it("sends an image file as input_image (data, URL or file id)", async () => {
    const { body } = await responsesBody(
      ask(
        file("image/png", { type: "data", data: "iVBORw0KGgo=" }),
        file("image/png", { type: "url", url: "https://x.test/a.png" }),
        file("image/png", { type: "file_id", fileId: "file-img" }),
      ),
    );
    expect(body!.input[0]!.content).toEqual([
      { type: "input_text", text: "Summarise" },
      { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
      { type: "input_image", image_url: "https://x.test/a.png", detail: "auto" },
      { type: "input_image", file_id: "file-img", detail: "auto" },
    ]);
  });

  it("sends another media type as a text note in its place", async () => {
    const { body, error } = await responsesBody(ask(file("text/csv", { type: "data", data: "YSxi" })));
    expect(error).toBeUndefined();
    expect(body!.input[0]!.content).toEqual([
      { type: "input_text", text: "Summarise" },
      { type: "input_text", text: "[attachment (text/csv) not sent: openai does not take this file type]" },
    ]);
  });
});

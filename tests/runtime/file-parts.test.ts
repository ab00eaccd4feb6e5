import { describe, expect, it } from "vitest";
import { InvalidArgumentError, type Message, type UserPart } from "@agentry/core";
import { makeRuntime } from "./helpers.js";

describe("runtime: user file parts", () => {
  it("stores file bytes as base64 (plain JSON), and the model gets the same part", async () => {
    const { runtime, store, provider } = makeRuntime([{ text: "It is a PDF." }]);
    const bytes = new Uint8Array([37, 80, 68, 70, 45]);
    const result = await runtime.send({
      agentId: "todo",
      content: [
        { type: "text", text: "What is this?" },
        { type: "file", mediaType: "application/pdf", source: { type: "data", data: bytes }, filename: "a.pdf" },
      ],
    });
    expect(result.status).toBe("complete");
    const expected = {
      type: "file",
      mediaType: "application/pdf",
      source: { type: "data", data: "JVBERi0=" },
      filename: "a.pdf",
    };
    const stored = (await store.load(result.sessionId)).flatMap((r) =>
      r.kind === "message" && r.message.role === "user" ? [r.message as Message] : [],
    );
    expect(stored[0]!.content).toEqual([{ type: "text", text: "What is this?" }, expected]);
    expect(JSON.parse(JSON.stringify(stored[0]))).toEqual(stored[0]);
    expect(provider.calls[0]!.messages.at(-1)!.content).toEqual([{ type: "text", text: "What is this?" }, expected]);
    await runtime.close();
  });
  it("a malformed file part is an InvalidArgumentError naming it, before any session is made", async () => {
    const { runtime, store, provider } = makeRuntime([{ text: "never" }]);
    const bad = { type: "file", mediaType: "", source: { type: "url" } } as unknown as UserPart;
    const sending = runtime.send({ agentId: "todo", content: [{ type: "text", text: "x" }, bad] });
    await expect(sending).rejects.toThrow(InvalidArgumentError);
    await expect(runtime.send({ agentId: "todo", content: [bad] })).rejects.toThrow(
      /content\[0\]\.mediaType .*; content\[0\]\.source must be/,
    );
    expect(await store.listSessions()).toEqual([]);
    expect(provider.calls).toEqual([]);
    await runtime.close();
  });
});

import { describe, expect, it } from "vitest";
import type { ModelRequest } from "@agentry/core";
import { openai } from "@agentry/core/openai";
import { createFakeOpenAIServer } from "@agentry/core/testing";
import { mapRequestToolNames } from "../../src/providers/tool-name-map.js";
import { restoreToolNames } from "../../src/testing/vendor-tool-names.js";

const tool = (name: string) => ({ name, description: name, inputSchema: {} });
const request = (names: string[]): ModelRequest => ({
  model: "m",
  system: "",
  tools: names.map(tool),
  messages: [
    { role: "user", content: "go" },
    { role: "assistant", content: [{ type: "tool_call", id: "c1", name: names[0]!, args: {} }] },
    { role: "tool", content: [{ type: "tool_result", toolCallId: "c1", name: names[0]!, result: "ok" }] },
  ],
});

describe("restoreToolNames", () => {
  it.each([[["tickets.get", "tickets_list"]], [["fs.read", "fs_read"]], [["fs_read", "fs.read", "fs-read"]]])(
    "undoes the adapters' mapping of %j",
    (names) => {
      const sent = mapRequestToolNames(request(names)).request;
      const { request: back, toVendor } = restoreToolNames(sent, new Set(names));
      expect(back).toEqual(request(names));
      expect(names.map(toVendor)).toEqual(sent.tools.map((t) => t.name));
    },
  );

  it("keeps the wire names when it does not know the defined ones", () => {
    const sent = mapRequestToolNames(request(["tickets.get"])).request;
    const { request: back, toVendor } = restoreToolNames(sent, new Set());
    expect(back.tools.map((t) => t.name)).toEqual(["tickets_get"]);
    // A dotted name the script answers with still goes out as the adapter would have sent it.
    expect(toVendor("tickets.get")).toBe("tickets_get");
  });
});

describe("fake server tool names", () => {
  it("learns a dotted name from the script's answers", async () => {
    const seen: string[][] = [];
    const server = await createFakeOpenAIServer((req, index) => {
      seen.push(req.tools.map((t) => t.name));
      return index === 0 ? { toolCalls: [{ name: "tickets.get", args: {} }] } : { text: "done" };
    });
    try {
      const provider = openai({ baseURL: server.baseURL, apiKey: "test" });
      const names: string[] = [];
      for await (const event of provider.stream(request(["tickets.get"]), { signal: new AbortController().signal }))
        if (event.type === "tool_call") names.push(event.name);
      for await (const _ of provider.stream(request(["tickets.get"]), { signal: new AbortController().signal }));
      expect(names).toEqual(["tickets.get"]);
      expect(server.requests[0]).toMatchObject({ tools: [{ function: { name: "tickets_get" } }] });
      expect(seen).toEqual([["tickets_get"], ["tickets.get"]]);
    } finally {
      await server.close();
    }
  });
});

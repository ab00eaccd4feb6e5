import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createToolNameMap } from "../../src/providers/tool-name-map.js";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import { createFakeAnthropicServer, createFakeOpenAIServer, type FakeServer } from "@agentry/core/testing";
import type { ModelEvent, ModelRequest, Provider } from "@agentry/core";

const VENDOR = /^[a-zA-Z0-9_-]{1,64}$/;

describe("tool names sent to vendors", () => {
  it("keeps vendor-valid names and maps dotted ones, without colliding with a name already offered", () => {
    const map = createToolNameMap(["fs.read_file", "fs_read_file", "fs.write_file"]);
    expect(map.toVendor("fs_read_file")).toBe("fs_read_file");
    expect(map.toVendor("fs.read_file")).toBe("fs_read_file_2");
    expect(map.toVendor("fs.write_file")).toBe("fs_write_file");
    expect(map.fromVendor("fs_read_file_2")).toBe("fs.read_file");
    expect(map.fromVendor("fs_read_file")).toBe("fs_read_file");
    expect(map.fromVendor("made_up")).toBe("made_up");
  });

  it("is reversible and collision-free for any set of Agentry tool names (property)", () => {
    const name = fc.stringMatching(/^[a-zA-Z0-9_.-]{1,64}$/);
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 12 }), (names) => {
        const map = createToolNameMap(names);
        const vendor = names.map((n) => map.toVendor(n));
        expect(vendor.every((v) => VENDOR.test(v))).toBe(true);
        expect(new Set(vendor).size).toBe(names.length);
        expect(vendor.map((v) => map.fromVendor(v))).toEqual(names);
      }),
    );
  });

  it("a 64-character dotted name whose sanitized form is taken stays within 64 characters", () => {
    const long = `${"a".repeat(31)}.${"b".repeat(32)}`;
    const map = createToolNameMap([long, long.replace(".", "_")]);
    expect(map.toVendor(long)).toHaveLength(64);
    expect(map.fromVendor(map.toVendor(long))).toBe(long);
  });

  const request = (messages: ModelRequest["messages"] = []): ModelRequest => ({
    model: "m",
    system: "",
    messages: [{ role: "user", content: "go" }, ...messages],
    tools: [
      { name: "fs.read_file", description: "read", inputSchema: { type: "object" } },
      { name: "fs_read_file", description: "other read", inputSchema: { type: "object" } },
    ],
  });
  const collect = async (provider: Provider, req: ModelRequest) => {
    const out: ModelEvent[] = [];
    for await (const event of provider.stream(req, { signal: new AbortController().signal })) out.push(event);
    return out;
  };

  const cases: [
    string,
    (script: Parameters<typeof createFakeOpenAIServer>[0]) => Promise<FakeServer>,
    (server: FakeServer) => Provider,
  ][] = [
    ["openai", createFakeOpenAIServer, (s) => openai({ baseURL: s.baseURL, apiKey: "k", maxRetries: 0 })],
    ["anthropic", createFakeAnthropicServer, (s) => anthropic({ baseURL: s.baseURL, apiKey: "k", maxRetries: 0 })],
  ];
  it.each(cases)(
    "%s: sends vendor-valid names (tools and history) and maps the model's calls back",
    async (_name, makeServer, makeProvider) => {
      const server = await makeServer([
        {
          toolCalls: [
            { id: "c2", name: "fs_read_file_2", args: {} },
            { id: "c3", name: "fs_read_file", args: {} },
          ],
        },
      ]);
      try {
        const history: ModelRequest["messages"] = [
          { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "fs.read_file", args: {} }] },
          { role: "tool", content: [{ type: "tool_result", toolCallId: "c1", name: "fs.read_file", result: "x" }] },
        ];
        const events = await collect(makeProvider(server), request(history));
        const calls = events.filter((e) => e.type === "tool_call");
        expect(calls.map((c) => c.name)).toEqual(["fs.read_file", "fs_read_file"]);
        const wire = JSON.stringify(server.requests[0]);
        expect(wire).not.toContain("fs.read_file");
        expect(wire).toContain("fs_read_file_2");
      } finally {
        await server.close();
      }
    },
  );
});

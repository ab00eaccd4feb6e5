import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { run } from "../loop/helpers.js";
import { mapMcpResult, mcpToolRequiresApproval, toAgentryTool, type McpToolMapping } from "@agentry/core/mcp";

const mapping = (extra: Partial<McpToolMapping> = {}): McpToolMapping => ({
  server: "srv",
  permissionClass: "network",
  approval: "destructive",
  call: () => Promise.resolve("ok"),
  ...extra,
});

describe("MCP tool mapping", () => {
  // The README's annotation table, row by row.
  it.each([
    [undefined, "destructive", true],
    [{}, "destructive", true],
    [{ readOnlyHint: true }, "destructive", false],
    [{ readOnlyHint: true, destructiveHint: true }, "destructive", false],
    [{ readOnlyHint: false }, "destructive", true],
    [{ destructiveHint: false }, "destructive", false],
    [{ destructiveHint: true }, "destructive", true],
    [{ readOnlyHint: true }, "always", true],
    [{ destructiveHint: true }, "never", false],
  ] as const)("annotations %j with approval %s → requiresApproval %s", (annotations, approval, expected) => {
    expect(mcpToolRequiresApproval(annotations, approval)).toBe(expected);
  });

  it("names tools server.tool, replacing characters outside [a-zA-Z0-9_.-], and leaves out names over 64 characters", () => {
    expect(toAgentryTool({ name: "get weather/now" }, mapping())).toMatchObject({ name: "srv.get_weather_now" });
    expect(toAgentryTool({ name: "x".repeat(61) }, mapping())).toEqual({
      skipped: expect.stringMatching(/does not fit/),
    });
  });

  it("takes the class from the host, marks read-only tools, and defaults a missing schema to an object", () => {
    const tool = toAgentryTool(
      { name: "look", annotations: { readOnlyHint: true } },
      mapping({ permissionClass: "knowledge" }),
    );
    expect(tool).toMatchObject({
      name: "srv.look",
      permissionClass: "knowledge",
      mcpServer: "srv",
      readOnly: true,
      requiresApproval: false,
      inputSchema: { type: "object" },
    });
  });

  it("leaves out a tool whose server schema cannot be checked with bounded cost (invalid regex, remote $ref), saying why", () => {
    const regex = toAgentryTool(
      { name: "bad", inputSchema: { type: "object", properties: { a: { type: "string", pattern: "(" } } } },
      mapping(),
    );
    expect(regex).toEqual({
      skipped: expect.stringMatching(
        /"srv\.bad" is left out: its input schema cannot be used .*unsupported pattern "\("/,
      ),
    });
    const remote = toAgentryTool(
      { name: "bad", inputSchema: { type: "object", properties: { b: { $ref: "https://example.invalid/x" } } } },
      mapping(),
    );
    expect(remote).toEqual({ skipped: expect.stringMatching(/only local references/) });
  });

  it("caps a huge description", () => {
    const tool = toAgentryTool({ name: "t", description: "d".repeat(100_000) }, mapping());
    expect("description" in tool && tool.description.length).toBeLessThanOrEqual(4_001);
  });

  it("keeps a copy of the 4,000 characters it keeps, not a slice that holds the server's 10 MB description alive", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const used = () => {
      gc();
      const { heapUsed, external } = process.memoryUsage();
      return heapUsed + external;
    };
    const before = used();
    const tools = Array.from({ length: 5 }, (_, i) =>
      toAgentryTool({ name: `t${i}`, description: `${i}`.repeat(10_000_000) }, mapping()),
    );
    // Five slices would keep 50 MB alive.
    expect(used() - before).toBeLessThan(10_000_000);
    expect(tools.map((tool) => ("description" in tool ? tool.description.length : 0))).toEqual([
      4_001, 4_001, 4_001, 4_001, 4_001,
    ]);
  });

  it("answers a server schema's pattern on the linear-time engine inside a turn (model-written ^(a+)+$ input)", async () => {
    const tool = toAgentryTool(
      { name: "m", inputSchema: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } } },
      mapping(),
    );
    if ("skipped" in tool) throw new Error(tool.skipped);
    const { result } = await run({
      script: [{ toolCalls: [{ name: "srv.m", args: { s: `${"a".repeat(40)}!` } }] }, { text: "ok" }],
      tools: [tool],
    });
    expect(result.status).toBe("complete");
    expect(result.messages[1]).toMatchObject({
      role: "tool",
      content: [{ isError: true, result: expect.stringMatching(/does not match the pattern/) }],
    });
  });

  it("maps results: structuredContent first, text parts joined, an error result thrown", () => {
    expect(mapMcpResult({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } })).toEqual({
      a: 1,
    });
    expect(
      mapMcpResult({
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
          { type: "resource_link", uri: "file:///x", name: "x" },
        ],
      }),
    ).toBe("one\ntwo\n[resource link: file:///x (x)]");
    expect(mapMcpResult({ content: [{ type: "resource", resource: { uri: "file:///a", text: "inline" } }] })).toBe(
      "inline",
    );
    expect(() => mapMcpResult({ content: [{ type: "text", text: "boom" }], isError: true })).toThrow("boom");
    expect(() => mapMcpResult({ content: [{ type: "text", text: "e".repeat(100_000) }], isError: true })).toThrow(
      /^e{8000}…\[truncated\]$/,
    );
  });
});

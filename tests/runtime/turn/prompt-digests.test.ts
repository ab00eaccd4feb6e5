import { describe, expect, it } from "vitest";
import { PromptDigests } from "../../../src/runtime/runner/model-call-records.js";

const list = () => [
  { name: "echo", description: "Echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  { name: "ask", description: "Ask", inputSchema: { type: "object" } },
];

describe("PromptDigests.toolList", () => {
  it("gives a tool list the digest of its JSON, and a new array of equal content the same one", () => {
    const digests = new PromptDigests();
    const first = digests.toolList(list());
    expect(first).toBe(digests.tools(JSON.stringify(list())));
    expect(digests.toolList(list())).toBe(first);
    // Equal as data, keys in another order: the same content, the same digest.
    const reordered = list().map(({ inputSchema, description, name }) => ({ inputSchema, description, name }));
    expect(digests.toolList(reordered)).toBe(first);
  });

  it("tells a list that differs in any value, key or element from the recent ones", () => {
    const digests = new PromptDigests();
    const first = digests.toolList(list());
    const changed = list();
    changed[1]!.inputSchema = { type: "object", required: [] } as never;
    const extraKey = list().map((tool) => ({ ...tool, strict: true }));
    const undefinedKey = list().map((tool) => ({ ...tool, extra: undefined }));
    expect(digests.toolList(changed)).not.toBe(first);
    expect(digests.toolList(extraKey)).not.toBe(first);
    expect(digests.toolList(list().slice(1))).not.toBe(first);
    // JSON drops an undefined property: the same JSON, so the same digest.
    expect(digests.toolList(undefinedKey)).toBe(first);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, InvalidArgumentError, type Tool } from "@agentry/core";
import { run } from "../loop/helpers.js";

const redos = "^(a+)+$";
const attack = `${"a".repeat(40)}!`;

/** The results the model saw for one call of `tool` per argument object. */
async function resultsOf(tool: Tool, calls: unknown[]) {
  const { result } = await run({
    script: [{ toolCalls: calls.map((args, i) => ({ id: `c${i}`, name: tool.name, args })) }, { text: "done" }],
    tools: [tool],
  });
  expect(result.status).toBe("complete");
  return (result.messages[1] as { content: { result: unknown; isError?: boolean }[] }).content;
}

describe("host tool schemas run every pattern on the linear-time engine", () => {
  it("a JSON Schema pattern with nested quantifiers: a 40-character model argument is an error result, not a frozen process", async () => {
    const tool = defineTool({
      name: "match",
      description: "m",
      input: { type: "object", properties: { s: { type: "string", pattern: redos } }, required: ["s"] },
      execute: ({ s }: { s: string }) => `ok ${s}`,
    });
    const [bad, good] = await resultsOf(tool, [{ s: attack }, { s: "aaa" }]);
    expect(bad).toMatchObject({
      isError: true,
      result: expect.stringMatching(/\/s: does not match the pattern required here/),
    });
    expect(good).toMatchObject({ result: "ok aaa" });
  });

  it("a zod .regex() with nested quantifiers (an email regex, say): the string never reaches zod's backtracking RegExp", async () => {
    const email = /^([a-zA-Z0-9]+\.?)+@example\.com$/;
    const tool = defineTool({
      name: "mail",
      description: "m",
      input: z.object({ to: z.string().regex(email) }),
      execute: ({ to }) => `sent to ${to}`,
    });
    const [bad, good] = await resultsOf(tool, [
      { to: `${"a".repeat(40)}!@example.com` },
      { to: "ann.lee@example.com" },
    ]);
    expect(bad).toMatchObject({
      isError: true,
      result: expect.stringMatching(/\/to: does not match the pattern required here/),
    });
    expect(good).toMatchObject({ result: "sent to ann.lee@example.com" });
  });

  it("zod's own string formats still work (their patterns are zod's); zod still applies transforms", async () => {
    const tool = defineTool({
      name: "fmt",
      description: "f",
      input: z.object({
        to: z.email(),
        code: z
          .string()
          .regex(/^[a-z]+$/)
          .transform((s) => s.toUpperCase()),
      }),
      execute: ({ to, code }) => `${to} ${code}`,
    });
    const [good, bad] = await resultsOf(tool, [
      { to: "a@b.co", code: "abc" },
      { to: "not an email", code: "abc" },
    ]);
    expect(good).toMatchObject({ result: "a@b.co ABC" });
    expect(bad).toMatchObject({ isError: true });
  });

  it("refuses, when the tool is defined, a pattern the linear-time engine does not run (backreference, lookahead)", () => {
    expect(() =>
      defineTool({
        name: "b",
        description: "b",
        input: { type: "object", properties: { s: { type: "string", pattern: "^(a)\\1$" } } },
        execute: () => "x",
      }),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      defineTool({
        name: "l",
        description: "l",
        input: z.object({ s: z.string().regex(/^(?=a)a+$/) }),
        execute: () => "x",
      }),
    ).toThrow(/Tool "l": invalid input schema: .*unsupported pattern/);
  });

  it("treats JSON Schema format as an annotation: the validator's own format regexes backtrack", async () => {
    const tool = defineTool({
      name: "link",
      description: "l",
      input: { type: "object", properties: { url: { type: "string", format: "url" } } },
      execute: ({ url }: { url: string }) => `got ${url.length}`,
    });
    const [result] = await resultsOf(tool, [{ url: `http://a${"a".repeat(40)}!` }]);
    expect(result).toMatchObject({ result: "got 49" });
  });

  it("checks patternProperties names on the linear-time engine, with their meaning kept", async () => {
    const tool = defineTool({
      name: "pp",
      description: "p",
      input: { type: "object", patternProperties: { "^(x+)+_$": { type: "number" } }, additionalProperties: false },
      execute: () => "ok",
    });
    const results = await resultsOf(tool, [{ xx_: 1 }, { xx_: "one" }, { [`${"x".repeat(40)}!`]: 1 }]);
    expect(results.map((r) => r.isError === true)).toEqual([false, true, true]);
  });
});

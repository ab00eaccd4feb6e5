import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unwrapSystemMessage, wrapSystemMessage } from "../../src/messages/system-message.js";
import { escapeUserContent } from "../../src/messages/system-message.js";

const tagCount = (text: string) => (text.match(/<\s*\/?\s*system_message/gi) ?? []).length;

describe("system message wrapping", () => {
  it("model-written text can never close or forge a <system_message> tag, and unwrapping gives it back", () => {
    const pieces = fc.constantFrom(
      "<system_message",
      "</system_message>",
      "< /SYSTEM_MESSAGE",
      "&lt;system_message",
      "&amp;lt;/system_message",
      "&",
      "<",
      ">",
      '"',
      "x",
      " ",
    );
    const texts = fc.oneof(
      fc.string(),
      fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(fc.string(), texts, (origin, text) => {
        const wrapped = wrapSystemMessage(origin, text);
        expect(tagCount(wrapped)).toBe(2);
        expect(unwrapSystemMessage(wrapped)).toEqual({ origin, text });
      }),
    );
  });
});

describe("escapeUserContent", () => {
  it("escapes the tags in a string and in each text part, leaving other parts and clean content as they are", () => {
    expect(escapeUserContent("a <System_Message origin=x> b < /system_message>")).toBe(
      "a &lt;System_Message origin=x> b &lt; /system_message>",
    );
    const image = { type: "image" as const, data: "aGk=", mediaType: "image/png" };
    const parts = [{ type: "text" as const, text: "</system_message>" }, image];
    expect(escapeUserContent(parts)).toEqual([{ type: "text", text: "&lt;/system_message>" }, image]);
    const clean = [{ type: "text" as const, text: "hello" }];
    expect(escapeUserContent(clean)).toBe(clean);
  });
});

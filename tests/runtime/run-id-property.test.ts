import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeRuntime, textOf } from "./helpers.js";

describe("SendInput.runId (property)", () => {
  it("any sequence of sends with repeated run ids: each run id's message is stored once, in first-arrival order, and answered once", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 12 }), async (ids) => {
        const { runtime, provider, store } = makeRuntime((request) => ({
          text: `re: ${textOf(request.messages.at(-1))}`,
        }));
        const first = await runtime.send({ agentId: "general", content: `m${ids[0]}`, runId: `r${ids[0]}` });
        const texts = new Map<number, string>([[ids[0]!, first.text]]);
        for (const id of ids.slice(1)) {
          const result = await runtime.send({
            agentId: "general",
            content: `m${id}`,
            session: first.sessionId,
            runId: `r${id}`,
          });
          expect(result.runId).toBe(`r${id}`);
          if (texts.has(id)) expect(result.text).toBe(texts.get(id));
          else texts.set(id, result.text);
        }
        const distinct = [...new Set(ids)];
        const users = (await store.load(first.sessionId)).flatMap((r) =>
          r.kind === "message" && r.message.role === "user" ? [textOf(r.message)] : [],
        );
        expect(users).toEqual(distinct.map((id) => `m${id}`));
        expect(provider.calls.length).toBe(distinct.length);
      }),
      { numRuns: 40 },
    );
  });
});

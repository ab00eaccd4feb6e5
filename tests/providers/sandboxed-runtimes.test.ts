import { afterEach, describe, expect, it } from "vitest";
import { openai } from "@agentry/core/openai";
import { anthropic } from "@agentry/core/anthropic";
import { collect, sseBody, textFetch } from "./helpers.js";

const stop = {
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }],
};

describe("providers in sandboxed runtimes (workerd, Deno)", () => {
  const env = process.env;
  afterEach(() => {
    process.env = env;
  });

  it("calls fetch unbound (workerd throws Illegal invocation when `this` is another object)", async () => {
    const served = textFetch(sseBody([stop], { done: true }));
    const thisValues: unknown[] = [];
    const workerdLikeFetch = function (this: unknown, input: string | URL | Request, init?: RequestInit) {
      thisValues.push(this);
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      return served(input, init);
    };
    const result = await collect(openai({ apiKey: "k", fetch: workerdLikeFetch, maxRetries: 0 }));
    expect(result.text).toBe("hi");
    expect(thisValues).toEqual([undefined]);
  });

  it("treats an environment read the runtime refuses (Deno without --allow-env) as unset", async () => {
    const refused = () => {
      throw new Error('NotCapable: Requires env access to "OPENAI_API_KEY", run again with the --allow-env flag');
    };
    process.env = new Proxy(env, { get: refused, has: refused });
    const fetch = textFetch(sseBody([stop], { done: true }));
    const result = await collect(openai({ fetch, maxRetries: 0 }));
    expect(result.text).toBe("hi");
    expect(fetch.headers[0]!.has("authorization")).toBe(false);
    expect(() => anthropic({ fetch })).not.toThrow();
  });
});

// zod for the core, with every `z.<function>(...)` call recorded in globalThis.agentryZodCalls
// (see shape-hooks.mjs and shape-checks.ts).
import * as actual from "zod";

export * from "zod";

const calls = (globalThis.agentryZodCalls ??= []);

export const z = new Proxy(actual.z, {
  get(target, key, receiver) {
    const value = Reflect.get(target, key, receiver);
    if (typeof value !== "function") return value;
    return (...args) => {
      calls.push(String(key));
      return value.apply(target, args);
    };
  },
});

import { describe, expectTypeOf, it } from "vitest";
import type { RuntimeContext } from "../../src/runtime/common/runtime-context.js";

describe("the runtime context", () => {
  it("is built in one step: its turn hooks are set when it is made and never assigned afterwards", () => {
    const assign = (runtime: RuntimeContext, other: RuntimeContext) => {
      // @ts-expect-error runTurn is read-only
      runtime.runTurn = () => Promise.reject(new Error("late"));
      // @ts-expect-error pendingQueue is read-only
      runtime.pendingQueue = other.pendingQueue;
      // @ts-expect-error onPlanReady is read-only
      runtime.onPlanReady = async () => undefined;
      // @ts-expect-error onPermission is read-only
      runtime.onPermission = () => undefined;
    };
    expectTypeOf(assign).toBeFunction();
    expectTypeOf<RuntimeContext["pendingQueue"]>().not.toBeUndefined();
    expectTypeOf<RuntimeContext["onPlanReady"]>().not.toEqualTypeOf<RuntimeContext["onPlanReady"] | undefined>();
  });
});

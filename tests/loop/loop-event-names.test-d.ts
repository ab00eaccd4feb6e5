import { expectTypeOf, test } from "vitest";
import type { LoopErrorEvent, LoopEvent, LoopMessageEvent } from "@agentry/core";

test("the loop's message and error events have names that do not shadow the DOM's", () => {
  expectTypeOf<Extract<LoopEvent, { type: "message" }>>().toEqualTypeOf<LoopMessageEvent>();
  expectTypeOf<Extract<LoopEvent, { type: "error" }>>().toEqualTypeOf<LoopErrorEvent>();
});

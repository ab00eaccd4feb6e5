import { expectTypeOf, test } from "vitest";
import type { ErrorEvent, LoopErrorEvent, LoopEvent, LoopMessageEvent, MessageEvent } from "@agentry/core";

test("the loop's message and error events have names that do not shadow the DOM's", () => {
  expectTypeOf<Extract<LoopEvent, { type: "message" }>>().toEqualTypeOf<LoopMessageEvent>();
  expectTypeOf<Extract<LoopEvent, { type: "error" }>>().toEqualTypeOf<LoopErrorEvent>();
});

test("the old names stay as deprecated aliases of the new ones", () => {
  expectTypeOf<MessageEvent>().toEqualTypeOf<LoopMessageEvent>();
  expectTypeOf<ErrorEvent>().toEqualTypeOf<LoopErrorEvent>();
});

import { describe, expectTypeOf, it } from "vitest";
import type { LoopEvent } from "@agentry/core";
import type { EventHandlers } from "../../src/ui/event-handlers.js";
import { AG_UI_HANDLERS, type AgUiTranslatorState } from "../../src/ui/ag-ui-translator.js";
import { UI_HANDLERS, type TranslatorState } from "../../src/ui/ui-message-translator.js";

describe("the UI translators' handler tables", () => {
  it("have an entry (a handler or null) for every event type", () => {
    expectTypeOf<keyof typeof UI_HANDLERS>().toEqualTypeOf<LoopEvent["type"]>();
    expectTypeOf<keyof typeof AG_UI_HANDLERS>().toEqualTypeOf<LoopEvent["type"]>();
  });

  it("do not compile without an entry for an event type", () => {
    const { subagent_status: _ui, ...uiWithout } = UI_HANDLERS;
    const { message_queued: _agUi, ...agUiWithout } = AG_UI_HANDLERS;
    // @ts-expect-error subagent_status is neither handled nor ignored
    const ui: EventHandlers<TranslatorState> = uiWithout;
    // @ts-expect-error message_queued is neither handled nor ignored
    const agUi: EventHandlers<AgUiTranslatorState> = agUiWithout;
    expectTypeOf(ui).not.toBeAny();
    expectTypeOf(agUi).not.toBeAny();
  });
});

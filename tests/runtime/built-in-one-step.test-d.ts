import { describe, expectTypeOf, it } from "vitest";
import type { TurnQueue } from "../../src/runtime/queue/turn-queue.js";
import type { TurnQueueDeps } from "../../src/runtime/queue/turn-queue-deps.js";
import type { createTurnRunner } from "../../src/runtime/runner/run-turn.js";
import type { TurnRunnerDeps } from "../../src/runtime/runner/turn-runner-deps.js";

describe("the runtime's services", () => {
  it("are built in one step: each takes a read-only object of what it needs, never assigned afterwards", () => {
    expectTypeOf<ConstructorParameters<typeof TurnQueue>[0]>().toEqualTypeOf<Readonly<TurnQueueDeps>>();
    expectTypeOf<Parameters<typeof createTurnRunner>[0]>().toEqualTypeOf<Readonly<TurnRunnerDeps>>();
    const assign = (deps: Readonly<TurnQueueDeps>, other: TurnQueueDeps) => {
      // @ts-expect-error the queue's deps are read-only
      deps.runner = other.runner;
      // @ts-expect-error the queue's deps are read-only
      deps.lifecycle = other.lifecycle;
      // @ts-expect-error the queue's deps are read-only
      deps.waits = other.waits;
    };
    expectTypeOf(assign).toBeFunction();
  });
});

import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime, InvalidArgumentError, type AgentRuntimeOptions } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";
import { checkOptions } from "../../src/postgres/pg-boss-dispatcher.js";
import type { PgBossDispatcherOptions } from "@agentry/core/postgres";

const registry = createAgentRegistry([{ agentId: "a", displayName: "A" }]);

/** The lease ttl a runtime made with `options` asks the store for. */
async function leaseTtlAsked(options: Partial<AgentRuntimeOptions>): Promise<number> {
  const store = new SqliteSessionStore({ path: ":memory:" });
  const asked: number[] = [];
  const acquire = store.acquireLease.bind(store);
  store.acquireLease = (sessionId, leaseOptions) => (asked.push(leaseOptions.ttlMs), acquire(sessionId, leaseOptions));
  const runtime = createAgentRuntime({
    registry,
    store,
    providers: { fake: createFakeProvider([{ text: "hi" }]) },
    defaultModel: "m",
    ...options,
  });
  await runtime.send({ agentId: "a", content: "hello" });
  await runtime.close();
  store.close();
  return asked[0]!;
}

/** What the dispatcher makes of `options` (its option checks run before it touches the database). */
const dispatcherSettings = (options: Partial<PgBossDispatcherOptions>) =>
  checkOptions({
    boss: { send: () => undefined } as unknown as PgBossDispatcherOptions["boss"],
    store: { append: () => undefined, pool: {} } as unknown as PgBossDispatcherOptions["store"],
    ...options,
  });

describe("one takeover knob: takeoverMs", () => {
  it("the runtime's session lease lasts takeoverMs (30 s unless given); leaseTtlMs overrides it", async () => {
    expect(await leaseTtlAsked({})).toBe(30_000);
    expect(await leaseTtlAsked({ takeoverMs: 4000 })).toBe(4000);
    expect(await leaseTtlAsked({ takeoverMs: 4000, leaseTtlMs: 3000 })).toBe(3000);
    expect(await leaseTtlAsked({ leaseTtlMs: 3000 })).toBe(3000);
  });

  it("a runtime whose lease would outlast its takeover, or a takeover that is not a positive whole number, is refused at creation", () => {
    const make = (options: Partial<AgentRuntimeOptions>) => () =>
      createAgentRuntime({ registry, store: new SqliteSessionStore({ path: ":memory:" }), providers: {}, ...options });
    expect(make({ takeoverMs: 2000, leaseTtlMs: 5000 })).toThrow(
      /leaseTtlMs \(5000\) is above takeoverMs \(2000\): a dead process's sessions would wait 5000 ms/,
    );
    expect(make({ takeoverMs: 0 })).toThrow(InvalidArgumentError);
    expect(make({ takeoverMs: 1.5 })).toThrow(/takeoverMs must be a whole number above 0/);
  });

  it("the dispatcher's claim and sweep timings derive from takeoverMs, the old knobs override them", () => {
    expect(dispatcherSettings({})).toMatchObject({ claimTtlMs: 15_000, sweepAfterMs: 10_000, sweepIntervalMs: 5000 });
    expect(dispatcherSettings({ takeoverMs: 6000 })).toMatchObject({
      claimTtlMs: 3000,
      sweepAfterMs: 2000,
      sweepIntervalMs: 1000,
    });
    expect(dispatcherSettings({ takeoverMs: 6000, sweepIntervalMs: 500 })).toMatchObject({
      claimTtlMs: 3000,
      sweepIntervalMs: 500,
    });
    // Without takeoverMs, the old knobs alone work as before.
    expect(dispatcherSettings({ claimTtlMs: 60_000, sweepAfterMs: 1000 })).toMatchObject({
      claimTtlMs: 60_000,
      sweepAfterMs: 1000,
      sweepIntervalMs: 5000,
    });
  });

  it("a dispatcher whose takeover cannot fit in takeoverMs is refused at creation, naming why", () => {
    expect(() => dispatcherSettings({ takeoverMs: 6000, claimTtlMs: 6000 })).toThrow(
      /takeoverMs \(6000\) cannot hold with claimTtlMs 6000, sweepAfterMs 2000 and sweepIntervalMs 1000: a dead worker's work would wait up to 7000 ms/,
    );
    expect(() => dispatcherSettings({ takeoverMs: 6000, sweepAfterMs: 5500 })).toThrow(InvalidArgumentError);
    expect(() => dispatcherSettings({ takeoverMs: -1 })).toThrow(/takeoverMs must be a whole number above 0/);
  });
});

import { describe, expect, it } from "vitest";
import { MemorySessionStore, type SessionSummary } from "@agentry/core";
import { ContractViolation, runSessionStoreContract } from "@agentry/core/testing";

/** Registers the suite with a recording runner instead of vitest's. */
function collect(makeStore: () => MemorySessionStore): { suite: string; checks: Map<string, () => Promise<void>> } {
  const checks = new Map<string, () => Promise<void>>();
  let suite = "";
  runSessionStoreContract("injected", makeStore, {
    describe: (name, body) => {
      suite = name;
      body();
    },
    it: (name, body) => checks.set(name, body),
  });
  return { suite, checks };
}

describe("runSessionStoreContract", () => {
  it("registers through an injected describe/it (any runner), and a correct store passes every check", async () => {
    const { suite, checks } = collect(() => new MemorySessionStore());
    expect(suite).toBe("SessionStore contract: injected");
    expect(checks.size).toBeGreaterThanOrEqual(20);
    for (const run of checks.values()) await run();
  });

  it("fails a store that breaks the contract with a ContractViolation saying what differs", async () => {
    class OldestFirst extends MemorySessionStore {
      override async listSessions(query?: { agentId?: string; limit?: number }): Promise<SessionSummary[]> {
        return (await super.listSessions({ agentId: query?.agentId })).reverse().slice(0, query?.limit);
      }
    }
    const { checks } = collect(() => new OldestFirst());
    const listing = [...checks].find(([name]) => name.startsWith("listSessions is newest first"))![1];
    const error = await listing().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractViolation);
    expect((error as Error).message).toMatch(/^listSessions\(\):\n {2}expected .*\n {2}got /);
  });
});

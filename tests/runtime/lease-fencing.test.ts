import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  LeaseLostError,
  MemorySessionStore,
  type AcquireLeaseOptions,
  type AppendOptions,
  type HistoryRecord,
  type LeasableSessionStore,
  type NewRecord,
  type SessionLease,
} from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";

/**
 * A memory store with leases, as SQLite and Postgres have them: a growing token per grant, appends
 * fenced by it. `takeOver` is what another process does once this one's lease ran out.
 */
class LeasedMemoryStore extends MemorySessionStore implements LeasableSessionStore {
  readonly newest = new Map<string, number>();
  readonly held = new Set<string>();
  renewals = 0;
  async acquireLease(sessionId: string, _options: AcquireLeaseOptions): Promise<SessionLease | undefined> {
    if (this.held.has(sessionId)) return undefined;
    const token = (this.newest.get(sessionId) ?? 0) + 1;
    this.newest.set(sessionId, token);
    this.held.add(sessionId);
    return { token, expiresAt: new Date(Date.now() + 60_000).toISOString() };
  }
  async renewLease(sessionId: string, token: number): Promise<SessionLease | undefined> {
    this.renewals++;
    return this.newest.get(sessionId) === token
      ? { token, expiresAt: new Date(Date.now() + 60_000).toISOString() }
      : undefined;
  }
  async releaseLease(sessionId: string, token: number): Promise<void> {
    if (this.newest.get(sessionId) === token) this.held.delete(sessionId);
  }
  override async append(sessionId: string, records: NewRecord[], options?: AppendOptions): Promise<HistoryRecord[]> {
    const token = options?.leaseToken;
    if (token !== undefined && this.newest.get(sessionId) !== token) throw new LeaseLostError(sessionId, token);
    return super.append(sessionId, records);
  }
  takeOver(sessionId: string): void {
    this.newest.set(sessionId, (this.newest.get(sessionId) ?? 0) + 1);
  }
}

const registry = createAgentRegistry([{ agentId: "a", displayName: "A" }]);

describe("a turn acts only while it holds its session lease", () => {
  it("a lease lost during a tool call: the next call of the turn never starts (sequential calls of one message)", async () => {
    const store = new LeasedMemoryStore();
    const ran: string[] = [];
    const first = defineTool({
      name: "first",
      description: "Runs while another process takes the session over",
      input: z.object({}),
      parallelSafe: false,
      execute: (_input, ctx) => {
        ran.push("first");
        store.takeOver(ctx.sessionId!);
        return "first done";
      },
    });
    const second = defineTool({
      name: "second",
      description: "A side effect",
      input: z.object({}),
      parallelSafe: false,
      execute: () => {
        ran.push("second");
        return "second done";
      },
    });
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: {
        fake: createFakeProvider([
          {
            toolCalls: [
              { name: "first", args: {} },
              { name: "second", args: {} },
            ],
          },
          { text: "never" },
        ]),
      },
      defaultModel: "m",
      tools: [first, second],
    });
    await expect(runtime.send({ agentId: "a", content: "go" })).rejects.toSatisfy((error) =>
      LeaseLostError.isInstance(error),
    );
    expect(ran).toEqual(["first"]);
    await runtime.close();
  });

  it("the call's start cannot be stored (the store fails): the call does not run, the model gets an error result it can act on", async () => {
    const store = new LeasedMemoryStore();
    let failStart = true;
    const append = store.append.bind(store);
    store.append = async (sessionId, records, options) => {
      if (failStart && records.some((record) => record.kind === "tool_start")) {
        failStart = false;
        throw new Error("connection reset");
      }
      return append(sessionId, records, options);
    };
    const ran: number[] = [];
    const step = defineTool({
      name: "step",
      description: "A side effect",
      input: z.object({ n: z.number() }),
      execute: ({ n }) => {
        ran.push(n);
        return `step ${n} done`;
      },
    });
    const provider = createFakeProvider([
      { toolCalls: [{ name: "step", args: { n: 1 } }] },
      { toolCalls: [{ name: "step", args: { n: 2 } }] },
      { text: "done" },
    ]);
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: { fake: provider },
      defaultModel: "m",
      tools: [step],
    });
    const result = await runtime.send({ agentId: "a", content: "go" });
    expect(result.status).toBe("complete");
    expect(ran).toEqual([2]);
    const told = provider.calls[1]!.messages.at(-1)!;
    expect(told.role === "tool" && told.content[0]).toMatchObject({
      isError: true,
      result: expect.stringMatching(/^Not run: .*connection reset/),
    });
    await runtime.close();
  });

  it("tools see the lease's fencing token as ctx.leaseToken, confirmed against the store before each call (its start's fenced append)", async () => {
    const store = new LeasedMemoryStore();
    const seen: (number | undefined)[] = [];
    const look = defineTool({
      name: "look",
      description: "Reads its context",
      input: z.object({}),
      execute: (_input, ctx) => {
        seen.push(ctx.leaseToken);
        return "ok";
      },
    });
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: {
        fake: createFakeProvider([
          { toolCalls: [{ name: "look", args: {} }] },
          { text: "done" },
          { toolCalls: [{ name: "look", args: {} }] },
          { text: "done" },
        ]),
      },
      defaultModel: "m",
      tools: [look],
    });
    const fenced: (number | undefined)[] = [];
    const append = store.append.bind(store);
    store.append = async (sessionId, records, options) => {
      if (records.some((record) => record.kind === "tool_start")) fenced.push(options?.leaseToken);
      return append(sessionId, records, options);
    };
    const first = await runtime.send({ agentId: "a", content: "go" });
    expect(first.status).toBe("complete");
    await runtime.send({ agentId: "a", content: "again", session: first.sessionId });
    // Each turn takes the lease anew: a greater token; each call's start was stored fenced by it first.
    expect(seen).toEqual([1, 2]);
    expect(fenced).toEqual([1, 2]);
    await runtime.close();
  });

  it("the starts of a parallel batch are stored together, in one fenced append, before any of its tools runs", async () => {
    const store = new LeasedMemoryStore();
    const appends: NewRecord[][] = [];
    const ran: string[] = [];
    const append = store.append.bind(store);
    store.append = async (sessionId, records, options) => {
      appends.push(records);
      return append(sessionId, records, options);
    };
    const look = defineTool({
      name: "look",
      description: "Reads",
      input: z.object({ at: z.string() }),
      execute: async ({ at }) => {
        // Started only once the batch's start record is stored.
        const starts = appends.flat().filter((r) => r.kind === "tool_start");
        ran.push(`${at}:${starts.length}`);
        return at;
      },
    });
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: {
        fake: createFakeProvider([
          {
            toolCalls: [
              { id: "c1", name: "look", args: { at: "a" } },
              { id: "c2", name: "look", args: { at: "b" } },
              { id: "c3", name: "look", args: { at: "c" } },
            ],
          },
          { text: "done" },
        ]),
      },
      defaultModel: "m",
      tools: [look],
    });
    const result = await runtime.send({ agentId: "a", content: "go" });
    expect(result.status).toBe("complete");
    const starts = appends.filter((records) => records.some((r) => r.kind === "tool_start"));
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject([{ kind: "tool_start", toolCallIds: ["c1", "c2", "c3"] }]);
    expect(ran).toEqual(["a:1", "b:1", "c:1"]);
    await runtime.close();
  });
});

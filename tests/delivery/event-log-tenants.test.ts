import { describe, expect, it } from "vitest";
import { createEventLog, InvalidArgumentError, SessionNotFoundError, type ResumedEvent } from "@agentry/core";
import { makeRuntime } from "../runtime/helpers.js";
import { collect } from "./helpers.js";

/** The error a promise rejects with. */
const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error("resolved"),
    (error: unknown) => error,
  );

describe("createEventLog().resume with a tenant guard", () => {
  it("tenant B resuming tenant A's session: not found, as an unknown id, and nothing yielded (also when the log holds the events)", async () => {
    const { runtime, events } = makeRuntime(() => ({ text: "Secret answer." }));
    const log = createEventLog({ runtime });
    const result = await runtime.send({ agentId: "general", content: "tell me", scope: "acme/alice" });
    const sessionId = result.sessionId;
    const first = events.find((e) => e.sessionId === sessionId)!;
    for (const guard of [{ scope: "globex" }, { scopePrefix: "globex" }, { scopePrefix: "acme/bob" }]) {
      for (const lastEventId of [log.eventId(first), undefined]) {
        const got: ResumedEvent[] = [];
        const error = await rejection(
          (async () => {
            for await (const event of log.resume({ sessionId, lastEventId, ...guard })) got.push(event);
          })(),
        );
        const unknown = await rejection(collect(log.resume({ sessionId: "no-such-session", lastEventId, ...guard })));
        expect(SessionNotFoundError.isInstance(error)).toBe(true);
        expect((error as Error).message).toBe((unknown as Error).message.replace("no-such-session", sessionId));
        expect(got).toEqual([]);
      }
    }
    // Within the guard: the missed events, or the snapshot.
    const replayed = await collect(log.resume({ sessionId, lastEventId: log.eventId(first), scopePrefix: "acme/" }));
    expect(replayed.map((e) => e.seq)).toEqual(
      events.filter((e) => e.sessionId === sessionId && e.seq > first.seq).map((e) => e.seq),
    );
    const [snapshot] = await collect(log.resume({ sessionId, scope: "acme/alice" }));
    expect(snapshot).toMatchObject({ type: "session_snapshot", sessionId });
    // A malformed guard is the host's mistake: thrown at once.
    expect(() => log.resume({ sessionId, scope: "acme/alice", scopePrefix: "acme/" })).toThrow(InvalidArgumentError);
    expect(() => log.resume({ sessionId, scope: "" })).toThrow(InvalidArgumentError);
    log.close();
    await runtime.close();
  });
});

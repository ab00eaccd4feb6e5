import { InvalidArgumentError } from "../errors/errors.js";
import { isSignalingSessionStore, MAX_STORE_SIGNAL_BYTES } from "../sessions/session-store.js";
import type { SessionStore, SignalingSessionStore, StoreSignal } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkRejects, pause } from "./session-contract-assert.js";
import type { ContractCase } from "./session-contract-fixtures.js";

/** How long a check waits for a signal another store object sent. */
const DELIVERY_MS = 10_000;

/** Signals of `topic` a subscriber got, resyncs (key `""`) left out. */
function collect(store: SignalingSessionStore, topic: string): { got: StoreSignal[]; stop: () => void } {
  const got: StoreSignal[] = [];
  const stop = store.subscribe(topic, (signal) => {
    if (signal.key !== "") got.push(signal);
  });
  return { got, stop };
}

/** Waits until `done()` holds, at most {@link DELIVERY_MS}. */
async function until(done: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!done()) {
    check(Date.now() - started < DELIVERY_MS, `${what}: not within ${DELIVERY_MS} ms`);
    await pause(5);
  }
}

/**
 * Sends probes from `from` until `to`'s subscriber got one: a store may need a moment to start
 * listening, and a signal sent before is lost (signals are hints).
 */
async function connected(from: SignalingSessionStore, to: SignalingSessionStore, topic: string): Promise<void> {
  const probe = collect(to, topic);
  try {
    await until(() => {
      if (probe.got.length === 0) void from.notify({ topic, key: "probe" });
      return probe.got.length > 0;
    }, "a probe signal reaches the other store object");
  } finally {
    probe.stop();
  }
  // Probes still on their way must not reach the checks' subscribers.
  await pause(50);
}

const numbered = (topic: string, count: number, from: string): StoreSignal[] =>
  Array.from({ length: count }, (_, i) => ({
    topic,
    key: `session-${i % 3}`,
    data: { from, i, text: "ünï ✓ \u0000" },
  }));

/** The signals checks, when the store implements them ({@link SignalingSessionStore}). */
export function signalCases(sibling: ((store: SessionStore) => Promise<SessionStore>) | undefined): ContractCase[] {
  return [
    {
      name: "signals (when implemented): a subscriber gets the signals of its topic in order, its data as sent; unsubscribe stops them",
      async run(store) {
        if (!isSignalingSessionStore(store)) return;
        const other = collect(store, "contract-other");
        const mine = collect(store, "contract-topic");
        const sent = numbered("contract-topic", 5, "self");
        for (const signal of sent) await store.notify(signal);
        await until(() => mine.got.length >= 5, "five signals to this store object's own subscriber");
        checkDeepEqual(mine.got, sent, "the signals delivered");
        mine.stop();
        await store.notify({ topic: "contract-topic", key: "after" });
        await pause(100);
        check(mine.got.length === 5, "a signal after unsubscribing was delivered");
        check(other.got.length === 0, "a subscriber of another topic got a signal");
        other.stop();
      },
    },
    {
      name: "signals (when implemented): two store objects on one database see each other's signals, in order per publisher",
      async run(store) {
        if (!isSignalingSessionStore(store) || !sibling) return;
        const second = await sibling(store);
        try {
          check(isSignalingSessionStore(second), "the sibling store carries signals too");
          for (const [from, to, name] of [
            [store, second, "first"],
            [second, store, "second"],
          ] as const) {
            await connected(from, to, "contract-link");
            const received = collect(to, "contract-topic");
            const elsewhere = collect(to, "contract-elsewhere");
            const sent = numbered("contract-topic", 20, name);
            await Promise.all(sent.map((signal) => from.notify(signal)));
            await until(() => received.got.length >= sent.length, `20 signals from the ${name} store object`);
            checkDeepEqual(received.got, sent, `the signals of the ${name} store object, in the order sent`);
            check(elsewhere.got.length === 0, "a subscriber of another topic got a signal");
            received.stop();
            elsewhere.stop();
          }
        } finally {
          await (second as { close?: () => unknown }).close?.();
        }
      },
    },
    {
      name: "signals (when implemented): a signal over MAX_STORE_SIGNAL_BYTES is refused with InvalidArgumentError, and not delivered",
      async run(store) {
        if (!isSignalingSessionStore(store)) return;
        const mine = collect(store, "contract-topic");
        // Multi-byte characters: the limit counts UTF-8 bytes, not characters.
        const big = { topic: "contract-topic", key: "k", data: "é".repeat(MAX_STORE_SIGNAL_BYTES / 2) };
        await checkRejects(
          (async () => store.notify(big))(),
          (error) => InvalidArgumentError.isInstance(error),
          "notify with an oversize signal",
        );
        await store.notify({ topic: "contract-topic", key: "small" });
        await until(() => mine.got.length >= 1, "the small signal after the refused one");
        checkDeepEqual(
          mine.got.map((signal) => signal.key),
          ["small"],
          "the signals delivered",
        );
        mine.stop();
      },
    },
  ];
}

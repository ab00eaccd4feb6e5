import { describe, expect, it } from "vitest";
import { InvalidArgumentError, type Message } from "@agentry/core";
import {
  CHARS_PER_TOKEN,
  MESSAGE_OVERHEAD_TOKENS,
  estimateMessageTokens,
  estimateTokens,
} from "../../src/context/estimate-tokens.js";
import { pruneHistory } from "../../src/context/prune-history.js";
import { answer, exchange, pairingProblems, text, user } from "./helpers.js";

/** Text that makes a user or plain assistant message cost exactly `tokens`. */
const sized = (tokens: number, char = "x"): string => text((tokens - MESSAGE_OVERHEAD_TOKENS) * CHARS_PER_TOKEN, char);
const cost = (messages: readonly Message[]): number => estimateTokens(messages);

describe("pruneHistory", () => {
  it("returns the input array itself when everything fits", () => {
    const history = [user("hi"), answer("hello"), ...exchange(["c1"]), answer("done"), user("next")];
    const total = estimateTokens(history, "be brief");
    const result = pruneHistory(history, { maxTokens: total, system: "be brief" });
    expect(result.messages).toBe(history);
    expect(result).toMatchObject({ dropped: 0, droppedTokens: 0, estimatedTokens: total, fits: true });
    expect(pruneHistory(history, { maxTokens: Infinity }).messages).toBe(history);
  });

  it("drops whole turns, oldest first", () => {
    const turns = [1, 2, 3, 4, 5].map((n) => [user(sized(100, String(n))), answer(sized(100, String(n)))]);
    const latest = user(sized(100, "L"));
    const history = [...turns.flat(), latest];
    expect(cost(history)).toBe(1_100);

    const result = pruneHistory(history, { maxTokens: 700 });
    expect(result.messages).toEqual([...turns.slice(2).flat(), latest]);
    expect(result).toMatchObject({ dropped: 4, droppedTokens: 400, estimatedTokens: 700, fits: true });
  });

  it("keeps a turn's request and latest answer when dropping its oldest tool exchanges is enough", () => {
    const first = exchange(["c1", "c2"]);
    const second = exchange(["c3"], "search", sized(50));
    const turn1 = [user("find the bug"), ...first, ...second, answer("it is in a.ts")];
    const history = [...turn1, user("thanks"), answer("welcome"), user("now fix it")];
    const total = cost(history);

    const one = pruneHistory(history, { maxTokens: total - cost(first) });
    expect(one.messages).toEqual([user("find the bug"), ...second, answer("it is in a.ts"), ...history.slice(6)]);
    expect(one).toMatchObject({ dropped: 2, droppedTokens: cost(first), fits: true });
    expect(pairingProblems(one.messages)).toEqual([]);

    const both = pruneHistory(history, { maxTokens: total - cost(first) - 1 });
    expect(both.messages).toEqual([user("find the bug"), answer("it is in a.ts"), ...history.slice(6)]);
    expect(pairingProblems(both.messages)).toEqual([]);
  });

  it("drops the whole turn when keeping its request and latest answer is still too much", () => {
    const turn1 = [user("find the bug"), ...exchange(["c1", "c2"]), ...exchange(["c3"]), answer(sized(80))];
    const rest = [user("thanks"), answer("welcome"), user("now fix it")];
    const result = pruneHistory([...turn1, ...rest], { maxTokens: cost(rest) });
    expect(result.messages).toEqual(rest);
    expect(result.dropped).toBe(turn1.length);
  });

  it("removes a tool call and its result together, never one without the other", () => {
    const [call, results] = exchange(["c1", "c2", "c3"], "read_file", sized(300));
    const history = [user("go"), call, results, answer("ok"), user("again")];
    for (let maxTokens = 0; maxTokens <= cost(history); maxTokens += 7) {
      const kept = pruneHistory(history, { maxTokens }).messages;
      expect(pairingProblems(kept)).toEqual([]);
      expect(kept.includes(call)).toBe(kept.includes(results));
    }
  });

  it("never removes the latest user message, what follows it, or the system prompt", () => {
    const tail = [user("latest"), ...exchange(["c7"], "read_file", sized(200)), ...exchange(["c8"])];
    const history = [user("old"), answer("old answer"), ...tail];
    const system = sized(40);
    const fitsTail = estimateTokens(tail, system);

    const tight = pruneHistory(history, { maxTokens: fitsTail, system });
    expect(tight.messages).toEqual(tail);
    expect(tight).toMatchObject({ dropped: 2, estimatedTokens: fitsTail, fits: true });

    const tooSmall = pruneHistory(history, { maxTokens: 10, system });
    expect(tooSmall.messages).toEqual(tail);
    expect(tooSmall).toMatchObject({ dropped: 2, estimatedTokens: fitsTail, fits: false });
  });

  it("returns the input unchanged with fits false when nothing before the latest user message exists", () => {
    const alone = [user(sized(500))];
    const result = pruneHistory(alone, { maxTokens: 100 });
    expect(result.messages).toBe(alone);
    expect(result).toMatchObject({ dropped: 0, estimatedTokens: 500, fits: false });

    const noUser = [answer(sized(300)), answer("b")];
    expect(pruneHistory(noUser, { maxTokens: 100 })).toMatchObject({ messages: noUser, dropped: 0, fits: false });
  });

  it("starts the result with a user message when the input did", () => {
    const history = [
      user("a"),
      ...exchange(["c1"]),
      answer(sized(200)),
      user("b"),
      ...exchange(["c2"]),
      answer("c"),
      user("d"),
    ];
    for (let maxTokens = 0; maxTokens <= cost(history); maxTokens += 5) {
      expect(pruneHistory(history, { maxTokens }).messages[0]?.role).toBe("user");
    }
  });

  it("drops a history that starts mid-conversation from the front, one exchange at a time", () => {
    const early = exchange(["c0"], "read_file", sized(100));
    const history = [...early, answer("so far"), user("question"), answer("reply"), user("latest")];
    const result = pruneHistory(history, { maxTokens: cost(history) - cost(early) });
    expect(result.messages).toEqual(history.slice(2));
    expect(result.dropped).toBe(2);
  });

  it("keeps reserveTokens free", () => {
    const history = [user(sized(100)), answer(sized(100)), user(sized(100))];
    expect(pruneHistory(history, { maxTokens: 300 }).dropped).toBe(0);
    const reserved = pruneHistory(history, { maxTokens: 300, reserveTokens: 1 });
    expect(reserved).toMatchObject({ dropped: 2, estimatedTokens: 100, fits: true });
  });

  it("sums dropped and kept estimates to the input's estimate, and never mutates the input", () => {
    const history = Object.freeze(
      [user(sized(90)), ...exchange(["c1"]), answer(sized(90)), user("x"), answer("y"), user("z")].map((m) =>
        Object.freeze(m),
      ),
    );
    const result = pruneHistory(history, { maxTokens: 50, system: "s" });
    expect(result.estimatedTokens + result.droppedTokens).toBe(estimateTokens(history, "s"));
    expect(result.messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0) + estimateTokens([], "s")).toBe(
      result.estimatedTokens,
    );
  });

  it("rejects a NaN budget and a negative or non-finite reserve", () => {
    expect(() => pruneHistory([], { maxTokens: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => pruneHistory([], { maxTokens: 10, reserveTokens: -1 })).toThrow(/reserveTokens/);
    expect(() => pruneHistory([], { maxTokens: Number.NaN, reserveTokens: Infinity })).toThrow(
      /maxTokens.*reserveTokens/,
    );
  });
});

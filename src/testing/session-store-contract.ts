import { InvalidArgumentError } from "../errors/errors.js";
import type { SessionStore } from "../contracts/session-store.js";
import type { ContractCase } from "./session-contract-fixtures.js";
import { historyCases } from "./session-contract-history.js";
import { metadataCases } from "./session-contract-metadata.js";
import { recordCases } from "./session-contract-records.js";
import { scopeCases } from "./session-contract-scope.js";
import { scopePrefixCases } from "./session-contract-scope-prefix.js";
import { surrogateCases } from "./session-contract-surrogates.js";
import { textCases } from "./session-contract-text.js";
import { capabilityCases } from "./session-contract-capabilities.js";
import { signalCases } from "./session-contract-signals.js";

/** A test runner's `describe` (vitest, jest, mocha, bun:test all fit). */
export type ContractDescribe = (name: string, body: () => void) => unknown;
/** A test runner's `it`. */
export type ContractIt = (name: string, body: () => Promise<void>) => unknown;

/** Options of {@link runSessionStoreContract}. */
export interface SessionStoreContractOptions {
  /**
   * Registers the suite.
   * @default the global `describe` when there is one (vitest `globals`, jest, mocha), else vitest's
   */
  describe?: ContractDescribe;
  /**
   * Registers one check.
   * @default the global `it` when there is one, else vitest's
   */
  it?: ContractIt;
  /**
   * Opens another store object on the database of `store` (another connection to the same file,
   * another pool on the same schema): the signals checks send signals from each object to the
   * other. The suite closes it after the check.
   * @default none (a store that carries signals is checked on one object only)
   */
  sibling?: (store: SessionStore) => Promise<SessionStore> | SessionStore;
}

/** Every check of the suite, in registration order. */
const contractCases = (options: SessionStoreContractOptions): ContractCase[] => [
  ...metadataCases,
  ...historyCases,
  ...recordCases,
  ...scopeCases,
  ...scopePrefixCases,
  ...textCases,
  ...surrogateCases,
  ...capabilityCases,
  ...signalCases(options.sibling && (async (store) => options.sibling!(store))),
];

function runner(options: SessionStoreContractOptions): { describe: ContractDescribe; it: ContractIt } {
  const scope = globalThis as {
    describe?: unknown;
    it?: unknown;
    __vitest_index__?: { describe?: unknown; it?: unknown };
  };
  // vitest without `globals` still exposes its API on `__vitest_index__` (it backs `import.meta.vitest`),
  // so the suite needs no import of vitest: importing this entry never loads a test runner.
  const pick = (name: "describe" | "it"): unknown =>
    options[name] ?? (typeof scope[name] === "function" ? scope[name] : scope.__vitest_index__?.[name]);
  const describe = pick("describe");
  const it = pick("it");
  if (typeof describe !== "function" || typeof it !== "function") {
    throw new InvalidArgumentError(
      "runSessionStoreContract: no test runner found; call it from a vitest test file or pass { describe, it } from your runner",
    );
  }
  return { describe: describe as ContractDescribe, it: it as ContractIt };
}

/**
 * Registers the `SessionStore` conformance suite: every store (memory, JSONL, SQLite, yours) must
 * pass it. Each check gets a fresh store from `makeStore` and, when the store has a `close()`
 * method, closes it afterwards. Checks fail with a `ContractViolation` error naming what differs.
 *
 * What it pins down beyond the types: summaries list newest first (ties in the same millisecond
 * still in touch order); `seq` is 1, 2, 3... per session with no gaps, also under 50 concurrent
 * appends; append is all-or-nothing (an invalid record → `InvalidArgumentError`, nothing stored)
 * and idempotent by record id (the stored record is returned in place of a duplicate); records
 * round-trip as plain JSON; an id in use → `InvalidArgumentError` from `createSession`; unknown
 * sessions → `SessionNotFoundError` (`deleteSession` of an unknown id is a no-op); `prune` when the
 * store implements it; `"latest"` routing through `resolveSession`; scope kept, listed by exact match
 * (`null` = unscoped only) and never crossed by `resolveSession`; `scopePrefix` as a literal prefix
 * (pattern characters, unicode, `""` = every scoped session, newest first with `limit`); every
 * string kept exactly, U+0000 and escape look-alikes included (a store may refuse such a session
 * id, with `InvalidArgumentError`); a lone UTF-16 surrogate refused in every id, scope, scope prefix,
 * name, pin and snippet (`InvalidArgumentError`) and kept exactly in attributes and records; records of further kinds kept as JSON; and, when the store has them, session leases
 * with fencing (`LeasableSessionStore`) and
 * the approval index (`ApprovalIndexStore`) and signals (`SignalingSessionStore`: a subscriber
 * gets its topic's signals in order, nothing after unsubscribing, nothing over
 * `MAX_STORE_SIGNAL_BYTES`; with `sibling`, two store objects on one database see each other's).
 *
 * @example
 * import { runSessionStoreContract } from "@agentry/core/testing";
 * import { MemorySessionStore } from "@agentry/core";
 *
 * runSessionStoreContract("MemorySessionStore", () => new MemorySessionStore());
 */
export function runSessionStoreContract(
  name: string,
  makeStore: () => Promise<SessionStore> | SessionStore,
  options: SessionStoreContractOptions = {},
): void {
  const { describe, it } = runner(options);
  describe(`SessionStore contract: ${name}`, () => {
    for (const contractCase of contractCases(options)) {
      it(contractCase.name, async () => {
        const store = await makeStore();
        try {
          await contractCase.run(store);
        } finally {
          await (store as { close?: () => unknown }).close?.();
        }
      });
    }
  });
}

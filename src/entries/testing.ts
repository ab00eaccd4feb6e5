/**
 * `@agentry/core/testing`: fakes and conformance suites, used the way users will use them.
 *
 * @module
 */

// >>> fake provider block
export { createFakeProvider } from "../testing/create-fake-provider.js";
export type { FakeProvider, FakeProviderOptions } from "../testing/create-fake-provider.js";
export { FakeScriptExhaustedError, fakeTurnEvents, wordChunks } from "../testing/fake-script.js";
export type { FakeScript, FakeTurn } from "../testing/fake-script.js";
export { collectEvents, eventsOfType, formatEvent, historyProblems } from "../testing/event-helpers.js";
// <<< fake provider block
// >>> session contract block
export { runSessionStoreContract } from "../testing/session-store-contract.js";
export type { ContractDescribe, ContractIt, SessionStoreContractOptions } from "../testing/session-store-contract.js";
export { ContractViolation } from "../testing/session-contract-assert.js";
// <<< session contract block
// >>> provider testing block
// <<< provider testing block

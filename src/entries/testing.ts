/**
 * `@agentry/core/testing`: fakes and conformance suites, used the way users will use them.
 *
 * @module \@agentry/core/testing
 */

// >>> fake provider block
export { createFakeProvider } from "../testing/create-fake-provider.js";
export type { FakeProvider, FakeProviderOptions } from "../testing/create-fake-provider.js";
export { FakeScriptExhaustedError, fakeTurnEvents, wordChunks } from "../testing/fake-script.js";
export type { FakeCallInfo, FakeScript, FakeTurn } from "../testing/fake-script.js";
export { collectEvents, eventsOfType, formatEvent, historyProblems } from "../testing/event-helpers.js";
// <<< fake provider block
// >>> session contract block
export { runSessionStoreContract } from "../testing/session-store-contract.js";
export type { ContractDescribe, ContractIt, SessionStoreContractOptions } from "../testing/session-store-contract.js";
export { ContractViolation } from "../testing/session-contract-assert.js";
// <<< session contract block
// >>> provider testing block
export { createFakeOpenAIServer } from "../testing/fake-openai-server.js";
export { createFakeAnthropicServer } from "../testing/fake-anthropic-server.js";
export { createFakeResponsesServer } from "../testing/fake-responses-server.js";
export type { FakeServer, FakeServerOptions } from "../testing/fake-http-server.js";
export { runProviderContract } from "../testing/provider-contract.js";
export type { ProviderContractContext, ProviderContractOptions } from "../testing/provider-contract.js";
// <<< provider testing block
// >>> cassette block
export { recordProvider, CASSETTE_MODE_VARIABLE } from "../testing/cassette/record-provider.js";
export type { RecordProviderOptions } from "../testing/cassette/record-provider.js";
export { replayProvider } from "../testing/cassette/replay-provider.js";
export type { ReplayProviderOptions } from "../testing/cassette/replay-provider.js";
export type {
  CassetteMode,
  CassetteProvider,
  CassetteVolatileOptions,
} from "../testing/cassette/create-cassette-provider.js";
export type { CassetteRedact } from "../testing/cassette/cassette-request.js";
export { CassetteMismatchError } from "../testing/cassette/cassette-mismatch-error.js";
// <<< cassette block

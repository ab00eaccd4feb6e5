import type { Message } from "../contracts/message.js";

/**
 * Token estimates (`estimateMessageTokens` summed) of history arrays whose owner already keeps
 * one: the runtime holds a running sum per session, so the loop need not walk a long history to
 * start its own. Internal: not exported from the package. Keyed by the exact array handed to
 * `runUnifiedAgentLoop`; an array nobody registered is estimated as usual.
 */
export const knownHistoryTokens = new WeakMap<readonly Message[], number>();

/**
 * The largest `maxDelegationDepth` a runtime accepts: 64 hops. Delivering a chain's end up to its
 * root, listing what a chain waits on and superseding a chain follow at most this many hops, so
 * a longer chain would stay suspended with nothing pending; `createAgentRuntime` refuses more.
 */
export const MAX_DELEGATION_DEPTH = 64;

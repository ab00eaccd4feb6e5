/**
 * Loads the runtime's on-demand module (../on-demand/on-demand.ts: the task API, what the agent tools do) on
 * first use. It is a chunk of its own in the ESM build, so importing the core does not load it; in
 * the CommonJS build it is part of the one file, and loading it costs a resolved promise.
 */
export const loadOnDemand = () => import("../on-demand/on-demand.js");

/**
 * Where a tool made by the runtime itself finds its turn's internals (caller session, lineage,
 * delegation chain) on its `ctx`: a symbol, so host tools never see them and no JSON carries them.
 */
export const RUNTIME_HOST: unique symbol = Symbol("agentry.runtimeHost");

/**
 * Where a tool call's context holds the names of the tools its level offers (the toolbelt, as
 * narrowed for a sub-task): the runtime's `start_background_agent` never gives a background agent
 * a tool its caller lacks.
 */
export const LEVEL_TOOLS: unique symbol = Symbol("agentry.levelTools");

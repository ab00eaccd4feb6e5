/**
 * Where a tool made by the runtime itself finds its turn's internals (caller session, lineage,
 * delegation chain) on its `ctx`: a symbol, so host tools never see them and no JSON carries them.
 */
export const RUNTIME_HOST: unique symbol = Symbol("agentry.runtimeHost");

/**
 * Build-time stand-in for `zod/v3` inside the bundled copy of `zod-to-json-schema` (see
 * tsup.config.ts): that package imports `zod/v3` only for the `ZodFirstPartyTypeKind` enum, whose
 * every value equals its key (`ZodString: "ZodString"`). Loading the real `zod/v3` for it cost
 * ~20 ms of cold import for hosts on zod 4; a zod 3 schema's `_def.typeName` holds the same
 * strings. Never imported by `src/` directly.
 */
export const ZodFirstPartyTypeKind: Readonly<Record<string, string>> = new Proxy(
  {},
  { get: (_target, key) => (typeof key === "string" ? key : undefined) },
);

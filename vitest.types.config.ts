import { defineConfig } from "vitest/config";
import suite from "./vitest.config.js";

/**
 * The `*.test-d.ts` type tests, alone: `npm run test:types`. They are not in `vitest.config.ts`, so
 * a filtered `vitest run` pays no typecheck. `npm run typecheck` (part of `npm test`) compiles them
 * too: tsc over tsconfig.tests.json fails on a wrong `expectTypeOf`; this runs them test by test.
 */
export default defineConfig({
  resolve: suite.resolve,
  test: {
    name: "types",
    include: [],
    typecheck: { enabled: true, only: true, include: ["tests/**/*.test-d.ts"], tsconfig: "./tsconfig.tests.json" },
  },
});

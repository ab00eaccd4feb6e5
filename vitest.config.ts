import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * The chaos test kills and restarts worker processes for about a minute: it is its own project,
 * which `npm test` runs alone on a PostgreSQL of its own after the rest (`test:chaos`). After the
 * whole suite on the same server it did not finish within its limit, alone it takes 40-50 s.
 */
const CHAOS = "tests/postgres/dispatch-chaos.test.ts";

/**
 * Test files that need a PostgreSQL server (`DATABASE_URL`, which `scripts/with-postgres.ts` sets
 * up) or drive a headless Chromium and the other runtimes: the `services` project. Everything else
 * is the `unit` project, which `npm run test:fast` runs alone.
 */
const SERVICES = [
  "tests/postgres/**/*.test.ts",
  "tests/examples/workers.test.ts",
  "tests/examples/web-chat.test.ts",
  "tests/inspector/page.test.ts",
  "tests/ui/chat-handler-chromium.test.ts",
  "tests/runtimes/runs-anywhere.test.ts",
  // Compiles the built package (dist/): `npm test` builds it first.
  "tests/package/consumer-types.test.ts",
];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@agentry\/core$/, replacement: src("index.ts") },
      { find: /^@agentry\/core\/(.+)$/, replacement: src("entries/$1.ts") },
    ],
  },
  test: {
    testTimeout: 20_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // examples/testing is a suite users copy: it runs with the project's tests.
          include: ["tests/**/*.test.ts", "examples/testing/**/*.test.ts"],
          exclude: [...SERVICES, CHAOS],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "services", include: SERVICES, exclude: [CHAOS], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "chaos", include: [CHAOS], sequence: { groupOrder: 1 } } },
    ],
  },
});

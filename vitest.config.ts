import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@agentry\/core$/, replacement: src("index.ts") },
      { find: /^@agentry\/core\/(.+)$/, replacement: src("entries/$1.ts") },
    ],
  },
  test: {
    // examples/testing is a suite users copy: it runs with the project's tests.
    include: ["tests/**/*.test.ts", "examples/testing/**/*.test.ts"],
    typecheck: { enabled: true, include: ["tests/**/*.test-d.ts"], tsconfig: "./tsconfig.tests.json" },
    testTimeout: 20_000,
    pool: "forks",
  },
});

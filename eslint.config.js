import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "api-docs/**",
      ".docs-check*/**",
      "bench/node_modules/**",
      "bench/results/**",
      "node_modules/**",
      "coverage/**",
      "examples/*/public/**",
      // Vendored: the published type declarations of @ai-sdk/provider 4.0.38 (tests/fixtures/README.md).
      "tests/fixtures/ai-sdk-provider-v4/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: "./tsconfig.tests.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      // Tools and providers may reject with anything; we pass their reasons through unchanged.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
    },
  },
  {
    // Wire data (provider streams, CLI output) is typed at the edge: what is read from `any` is
    // narrowed with the guards of src/internal/wire-guards.ts before use.
    files: ["src/providers/**", "src/node/**"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "error",
      "@typescript-eslint/no-unsafe-member-access": "error",
      "@typescript-eslint/no-unsafe-argument": "error",
      "@typescript-eslint/no-unsafe-return": "error",
      "@typescript-eslint/no-unsafe-call": "error",
    },
  },
  {
    // bench/ has its own tsconfig (NodeNext, the peer SDKs' type stand-ins in bench/types).
    files: ["bench/**/*.ts"],
    languageOptions: {
      parserOptions: { project: "./bench/tsconfig.json", tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ["eslint.config.js", "bench/**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node scripts: the Node globals they use.
    files: ["bench/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", performance: "readonly" } },
  },
);

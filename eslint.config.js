// Typed linting needs the TypeScript compiler API, which TypeScript 7 no longer offers;
// the project therefore pins TypeScript 6.0 (see README, "Development").
import eslint from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "dist-check/", "node_modules/", "test-results/", "src/generated/"] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-confusing-void-expression": ["error", { ignoreArrowShorthand: true }],
    },
  },
  {
    files: ["src/domain/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["express", "express-*", "../http/*", "../ui/*"], message: "domain/ stays free of HTTP." }] },
      ],
    },
  },
  { files: ["eslint.config.js"], ...tseslint.configs.disableTypeChecked },
  // The inbox page is plain browser JavaScript with no build step: no type information to lint with.
  {
    files: ["src/ui/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.browser, sourceType: "module" },
  },
  // The jest examples and fixtures are plain JavaScript run by jest, whose hooks and expect are globals.
  {
    files: ["examples/jest/**/*.mjs", "test/support/strict-contract/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node, ...globals.jest }, sourceType: "module" },
  },
  // The bench is plain Node ES modules run against dist/, with no build step of its own.
  {
    files: ["test/bench/**/*.mjs", "scripts/**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node, sourceType: "module" },
  },
);

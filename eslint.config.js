// Typed linting needs the TypeScript compiler API, which TypeScript 7 no longer offers;
// the project therefore pins TypeScript 6.0 (see CONTRIBUTING.md, "Tooling").
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
  // The layers (see CONTRIBUTING.md, "Tooling"): domain/ is interfaces and pure logic, stores/ implement
  // its interfaces, send/ is POST /send's core (a request value in, an outcome out), http/ is the edge. Import cycles are checked by scripts/check-cycles.mjs.
  {
    files: ["src/domain/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["express", "express-*", "cors", "**/http/**", "**/ui/**"], message: "domain/ stays free of HTTP." },
            { group: ["ioredis", "**/stores/**", "**/stores"], message: "domain/ defines the store interfaces; stores/ implements them." },
            {
              group: ["**/config/**", "**/config.js", "**/app.js", "**/mock.js", "**/server.js", "**/commands/**"],
              message: "domain/ is used by the config and the app, never the other way round.",
            },
            { group: ["**/contract/**"], message: "domain/ knows nothing of the OpenAPI documents; contract/ checks against them and uses the domain." },
            {
              group: ["**/errors", "**/errors.js"],
              importNames: ["ApiError", "ApiErrorOptions", "DEFAULT_ERROR_STATUS", "apiErrorOf", "rejectingAsApiError"],
              message: "domain/ refuses with a DomainFailure (domain/failure.ts): its code and words, no HTTP status; the edge makes the ApiError.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/stores/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["express", "express-*", "**/http/**", "**/ui/**"], message: "stores/ keep state; HTTP is http/'s business." },
            { group: ["**/app.js", "**/mock.js", "**/server.js", "**/commands/**"], message: "stores/ are picked by the mock, not the other way round." },
          ],
        },
      ],
    },
  },
  {
    files: ["src/message-checks/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "express",
                "express-*",
                "ioredis",
                "**/http/**",
                "**/ui/**",
                "**/stores/**",
                "**/stores",
                "**/config/**",
                "**/commands/**",
                "**/contract/**",
              ],
              message:
                "message-checks/ are pure functions of a rendered message: the API, lint, the page and the matchers call them, never the other way round.",
            },
            { group: ["**/mock.js", "**/app.js", "**/server.js"], message: "message-checks/ know nothing of a mock." },
          ],
        },
      ],
    },
  },
  {
    files: ["src/send/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["express", "express-*", "cors", "body-parser", "**/http/**", "**/ui/**"],
              message: "send/ is the core: a request value in, an outcome out; sockets are http/'s.",
            },
            { group: ["ioredis", "**/stores/**", "**/stores"], message: "send/ reaches state through the domain's interfaces." },
            {
              group: ["**/config/**", "**/config.js", "**/app.js", "**/mock.js", "**/server.js", "**/commands/**"],
              message: "send/ is given what it needs by the mock.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/contract/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/config/**", "**/app.js", "**/mock.js", "**/server.js", "**/commands/**"],
              message: "contract/ checks documents and values it is handed; the config and the app use it, never the other way round.",
            },
          ],
        },
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
    files: ["test/support/strict-contract/*.mjs", "test/support/per-file-sandboxes/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node, ...globals.jest }, sourceType: "module" },
  },
  // The README's jest examples are a default jest project's files, and the proof's fixtures CommonJS: whatever this package's own "type" says.
  {
    files: ["examples/jest/**/*.js", "examples/sandbox-per-file/jest/**/*.js", "test/support/per-file-sandboxes/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node, ...globals.jest }, sourceType: "commonjs" },
    rules: { ...tseslint.configs.disableTypeChecked.rules, "@typescript-eslint/no-require-imports": "off" },
  },
  // The bench is plain Node ES modules run against dist/, with no build step of its own.
  {
    files: ["test/bench/**/*.mjs", "scripts/**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node, sourceType: "module" },
  },
);

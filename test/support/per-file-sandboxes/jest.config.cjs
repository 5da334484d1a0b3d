// The proof's three jest files in one worker, one sendmock for the run from the package's global setup and teardown, as a user's config names them.
module.exports = {
  rootDir: __dirname,
  testMatch: ["<rootDir>/*.jest.{cjs,mjs}"],
  globalSetup: "sendmock/jest/global-setup",
  globalTeardown: "sendmock/jest/global-teardown",
  maxWorkers: 1,
  testSequencer: "<rootDir>/file-order.cjs",
  // sendmock resolves to this repository's dist/ (the package's own exports), which jest would transform as a source:
  // left as it is, as jest leaves node_modules in a user's project.
  transformIgnorePatterns: ["/node_modules/", "/dist/"],
};

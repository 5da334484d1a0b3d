// jest.config.js: one sendmock for the whole run, started before the first test file and stopped after the last.
module.exports = {
  globalSetup: "sendmock/jest/global-setup",
  globalTeardown: "sendmock/jest/global-teardown",
};

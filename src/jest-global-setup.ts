// sendmock/jest/global-setup: one sendmock for the whole jest run, `globalSetup: "sendmock/jest/global-setup"`, with
// `globalTeardown: "sendmock/jest/global-teardown"`. It runs in jest's main process: it uses no jest global. Options in code: sendmockGlobalSetup.

import { sendmockGlobalSetup } from "./global-setup.js";

/** jest calls a global setup module's default export, before it starts any worker. */
export default sendmockGlobalSetup().setup;

// sendmock/jest/global-teardown: stops the sendmock that sendmock/jest/global-setup started, `globalTeardown: "sendmock/jest/global-teardown"`.

import { sendmockGlobalSetup } from "./global-setup.js";

/** jest calls a global teardown module's default export once the last test file has run. */
export default sendmockGlobalSetup().teardown;

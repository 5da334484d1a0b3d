// sendmock/vitest/global-setup: one sendmock for the whole vitest run, `globalSetup: ["sendmock/vitest/global-setup"]`.
// It runs in vitest's main process, not in a worker: it imports nothing of vitest. Options in code: sendmockGlobalSetup.

import { sendmockGlobalSetup } from "./global-setup.js";

/** vitest runs `setup` before the first worker starts and `teardown` after the last file. */
export const { setup, teardown } = sendmockGlobalSetup();

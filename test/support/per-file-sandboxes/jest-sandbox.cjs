// The sandbox each jest file of the proof uses: setupSandbox's own, or, as the negative control (SANDBOX_OF=worker), the worker's.
const { sandboxClient, setupSandbox } = require("sendmock/jest");

/** The worker's sandbox is what the files of one worker used to share: the control that shows the leak the proof rules out. */
function fileSandbox() {
  return process.env.SANDBOX_OF === "worker" ? sandboxClient({ url: process.env.SENDMOCK_URL ?? "" }) : setupSandbox({ onContractViolation: "error" });
}

module.exports = { fileSandbox };

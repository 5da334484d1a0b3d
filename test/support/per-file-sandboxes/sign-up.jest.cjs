// One of three files that jest runs in one worker, in a varied order: it finds its sandbox empty and leaves things behind, never resetting anything itself.
const { contentsOf, leaveThingsBehind } = require("./sandbox-steps.cjs");
const { fileSandbox } = require("./jest-sandbox.cjs");

const sandbox = fileSandbox();

test("starts with an empty sandbox", async () => {
  expect(await contentsOf(sandbox)).toEqual({ messages: 0, requests: 0, faultRules: 0, clockOffsetMs: 0 });
});

test("leaves messages, a fault rule and a clock advance behind", async () => {
  expect(await leaveThingsBehind(sandbox)).toEqual({ messages: 2, requests: 2, faultRules: 1, clockOffsetMs: 3_600_000 });
});

// One of three files that vitest runs in one worker, in a shuffled order: it finds its sandbox empty and leaves things behind, never resetting anything itself.
import { expect, it } from "vitest";
import { contentsOf, leaveThingsBehind } from "./sandbox-steps.cjs";
import { fileSandbox } from "./vitest-sandbox.js";

const sandbox = fileSandbox();

it("starts with an empty sandbox", async () => {
  expect(await contentsOf(sandbox)).toEqual({ messages: 0, requests: 0, faultRules: 0, clockOffsetMs: 0 });
});

it("leaves messages, a fault rule and a clock advance behind", async () => {
  expect(await leaveThingsBehind(sandbox)).toEqual({ messages: 2, requests: 2, faultRules: 1, clockOffsetMs: 3_600_000 });
});

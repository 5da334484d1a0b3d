// One of two workers sharing one sendmock: five sends in its own sandbox.
import { it } from "vitest";
import { runWorker } from "./worker-run.js";

it("sees exactly its own messages, rules, clock and reset", () => runWorker(5));

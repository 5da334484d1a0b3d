// Counting what Ajv compiles, and the mocks a compile-counting test starts: shared by the warm-up tests.

import { Ajv } from "ajv";
import { afterEach, vi } from "vitest";
import type { RunningSendMock } from "../../src/index.js";

/** Every schema Ajv compiles goes through this method of its core class, whichever draft. */
export function spyOnSchemaCompiles() {
  const core = Object.getPrototypeOf(Ajv.prototype) as { _compileSchemaEnv: (...args: unknown[]) => unknown };
  return vi.spyOn(core, "_compileSchemaEnv");
}

/** The mocks a test starts, closed (and the spies restored) after each test. */
export function closedAfterEach(): RunningSendMock[] {
  const mocks: RunningSendMock[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(mocks.splice(0).map((mock) => mock.close()));
  });
  return mocks;
}

// The hooks the test helpers register (vitest's and jest's beforeAll, afterEach, afterAll), as any framework with those three gives them.

/** A hook of the test framework: vitest's and jest's `beforeAll`, `afterEach`, `afterAll`. */
export type TestHook = (fn: () => Promise<void>, timeoutMs?: number) => unknown;

export interface TestHooks {
  beforeAll: TestHook;
  afterEach: TestHook;
  afterAll: TestHook;
}

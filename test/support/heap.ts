// The heap a test leaves behind, measured after a full collection: what a store keeps, not the
// garbage V8 has not collected yet.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Bytes of live heap after two full collections (the second catches what the first's finalizers let go). */
export function liveHeapBytes(): number {
  // Exposing gc at run time makes it callable from a fresh context, without starting node with --expose-gc.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

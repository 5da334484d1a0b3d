// The builds the suite uses but does not make, as they take too long for it: the single
// executable (npm run build:binary) and the image's exported file system (npm run build:image,
// then scripts/export-image.mjs), both made by .ci/run before `npm test`. Outside CI a missing one
// skips its tests and says why; in CI it fails them.

import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./cli-process.js";

const IN_CI = process.env.CI === "true";

/** dist/sendmock-<platform>-<arch>, as scripts/build-binary.mjs names it. */
export const BINARY = path.join(ROOT, "dist", `sendmock-${process.platform}-${process.arch}${process.platform === "win32" ? ".exe" : ""}`);

/** The image's root file system; its config, as the container tool inspected it, is image.json beside it. */
export const IMAGE_ROOT = path.resolve(process.env.SENDMOCK_TEST_IMAGE_ROOT ?? path.join(ROOT, "dist", "image-export", "rootfs"));
export const IMAGE_CONFIG = path.join(path.dirname(IMAGE_ROOT), "image.json");

function unavailable(what: string, reason: string): string {
  if (IN_CI) throw new Error(`${what} must run in CI, but ${reason}`);
  console.warn(`skipping ${what}: ${reason}`);
  return reason;
}

/** Why the single executable's tests cannot run here, or undefined when they can. */
export function binaryMissing(): string | undefined {
  if (!existsSync(BINARY)) return unavailable("the single executable's tests", `${path.relative(ROOT, BINARY)} is not built (npm run build:binary)`);
  // Run all the same: an older executable is still worth testing, but a failure may be its age.
  const lastBuild = path.join(ROOT, "dist", "checked-contracts.json");
  if (existsSync(lastBuild) && statSync(lastBuild).mtimeMs > statSync(BINARY).mtimeMs) {
    console.warn(`${path.relative(ROOT, BINARY)} is older than the last build of dist/; npm run build:binary builds it again`);
  }
  return undefined;
}

/** Why the image's tests cannot run here, or undefined when they can: they need its file system, and root for chroot and mount. */
export function imageMissing(): string | undefined {
  const what = "the image's tests";
  if (!existsSync(IMAGE_ROOT) || !existsSync(IMAGE_CONFIG)) {
    return unavailable(
      what,
      `no exported image at ${IMAGE_ROOT} with ${path.basename(IMAGE_CONFIG)} beside it (npm run build:image && node scripts/export-image.mjs)`,
    );
  }
  if (process.getuid?.() !== 0) return unavailable(what, "they run the image's entrypoint with chroot and mount its templates, which need root");
  for (const tool of ["chroot", "unshare", "mount"]) {
    if (spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0) return unavailable(what, `${tool} is not on the PATH`);
  }
  return undefined;
}

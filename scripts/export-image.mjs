// Writes the file system and the config of the image `npm run build:image` built to a folder, for
// test/e2e/image.test.ts, which runs its entrypoint there with chroot: a container cannot start on
// the CI machines (the runtime may not set its limits), while create and export work.
// Usage: node scripts/export-image.mjs [folder]   (default dist/image-export)
// Writes <folder>/rootfs/ and <folder>/image.json ({ tool, image, config: the image's User,
// ExposedPorts, Env, Entrypoint, Cmd, Labels }), and prints SENDMOCK_TEST_IMAGE_ROOT=<folder>/rootfs.

import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { containerTool, IMAGE, runTool } from "./build-image.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The image's files through a container made from it and never started: exported to a tar file
 * and unpacked by tar, which keeps owners and modes (/tmp's 1777). Not piped: podman opens
 * /dev/stdout, which fails on the socket node gives a child. buildah has no export: its working
 * container is mounted and copied.
 */
function exportInto(tool, rootfs) {
  if (tool === "buildah") {
    const container = runTool(tool, ["from", "--pull-never", IMAGE]).trim();
    try {
      execFileSync("cp", ["-a", `${runTool(tool, ["mount", container]).trim()}/.`, rootfs]);
    } finally {
      runTool(tool, ["rm", container]);
    }
    return;
  }
  const container = runTool(tool, ["create", IMAGE]).trim();
  const archive = `${rootfs}.tar`;
  try {
    runTool(tool, ["export", "-o", archive, container]);
    execFileSync("tar", ["-x", "-p", "-f", archive, "-C", rootfs], { stdio: ["ignore", "ignore", "inherit"] });
  } finally {
    rmSync(archive, { force: true });
    runTool(tool, ["rm", container]);
  }
}

/** The image's config as podman and docker inspect it (buildah keeps the OCI one under OCIv1). */
function imageConfig(tool) {
  const inspected = JSON.parse(runTool(tool, tool === "buildah" ? ["inspect", "--type", "image", IMAGE] : ["image", "inspect", IMAGE]));
  const { User, ExposedPorts, Env, Entrypoint, Cmd, Labels } = tool === "buildah" ? inspected.OCIv1.config : inspected[0].Config;
  return { User, ExposedPorts, Env, Entrypoint, Cmd, Labels };
}

function exportImage(folder) {
  const tool = containerTool();
  const rootfs = path.join(folder, "rootfs");
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(rootfs, { recursive: true });
  exportInto(tool, rootfs);
  writeFileSync(path.join(folder, "image.json"), `${JSON.stringify({ tool, image: IMAGE, config: imageConfig(tool) }, null, 2)}\n`);
  process.stdout.write(`SENDMOCK_TEST_IMAGE_ROOT=${rootfs}\n`);
}

exportImage(path.resolve(process.argv[2] ?? path.join(ROOT, "dist", "image-export")));

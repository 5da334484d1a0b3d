// A small text file read as a whole, bounded: a regular file (never a FIFO that blocks, a folder or a device) of at most a given size.

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** The file could not be read as a bounded text file; the message starts with what the file is (`config file x.yaml: …`). */
export class FileReadError extends Error {
  override name = "FileReadError";
}

/** What a path that is not a regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a file";
}

/**
 * The file's text: a regular file of at most `maxBytes`, else a FileReadError naming it as `what`
 * (`config file x.yaml`). Opened without blocking (a FIFO nobody writes to would hold the caller for
 * ever), looked at before it is read, and read no further than the bound, however the file grows
 * meanwhile. `--config /dev/zero` once read 6.2 GB in 15 s.
 */
export function readBounded(file: string, what: string, maxBytes: number, bound: string): string {
  let fd: number;
  try {
    // O_NONBLOCK is absent on Windows, where it ORs as 0: no FIFO blocks an open there.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new FileReadError(`${what}: ${reason}`, { cause: error });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new FileReadError(`${what}: is ${kindOf(stats)}, not a regular file`);
    if (stats.size > maxBytes) throw new FileReadError(`${what}: is ${stats.size} bytes, more than ${bound}`);
    // Read to its end, not to the size it had: a file of /proc says 0, and a file may grow meanwhile.
    const chunks: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    let total = 0;
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      total += read;
      if (total > maxBytes) throw new FileReadError(`${what}: grew past ${bound} while it was read`);
      chunks.push(Buffer.from(chunk.subarray(0, read)));
    }
    return Buffer.concat(chunks).toString("utf8");
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    throw new FileReadError(`${what}: ${(error as Error).message}`, { cause: error });
  } finally {
    closeSync(fd);
  }
}

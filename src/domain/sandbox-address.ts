// Which sandbox names the recipient rule can carry: an address's domain holds letters, digits and "-" between dots.

/**
 * Why no address can name the sandbox `name` (a valid sandbox name), and how to name it so; undefined
 * when one can. The send contract holds `to` to JSON Schema's email format, whose domain is parts of
 * letters, digits and "-" between dots, none empty and none starting or ending with "-": a name such
 * as e2e_worker_1 is a good sandbox name, but its address was refused as invalid_recipient.
 */
export function sandboxAddressProblem(name: string): { why: string; rename: string } | undefined {
  if (name.includes("_")) return { why: `an address's domain allows no "_"`, rename: `name the sandbox without "_"` };
  const parts = name.split(".");
  if (parts.includes("")) return { why: `an address's domain has no empty part: no "." at either end, and none two in a row`, rename: `name the sandbox so` };
  if (parts.some((part) => part.startsWith("-") || part.endsWith("-")))
    return { why: `each part of an address's domain between dots starts and ends with a letter or a digit, not "-"`, rename: `name the sandbox so` };
  return undefined;
}

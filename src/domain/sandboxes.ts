// Sandboxes: named slices of one mock (docs/sandboxes.md). Their names, the recipient rule that names one from an address, and the registry that bounds them.

import { DomainFailure } from "./failure.js";
import { sandboxAddressProblem } from "./sandbox-address.js";

/** The sandbox of a send that names none, and of the state a mock without sandboxes had. */
export const DEFAULT_SANDBOX = "default";

export const DEFAULT_MAX_SANDBOXES = 1000;

/** 1-64 characters of letters, digits, `_`, `.` and `-` (interface section 15). */
const SANDBOX_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The header a send or a /_mock call names its sandbox by. */
export const SANDBOX_HEADER = "x-sendmock-sandbox";

/**
 * A recipient `anyone@NAME.sandbox.sendmock.test` sends into the sandbox NAME. `.test` is reserved
 * (RFC 2606): no real address ends so, and the magic recipients' domain is `fault.sendmock.test`.
 */
export const SANDBOX_RECIPIENT_DOMAIN = "sandbox.sendmock.test";

/**
 * Whether a recipient's domain (lowercased) names a sandbox. A magic recipient's local part
 * (docs/errors-and-faults.md, docs/delivery-events.md) keeps its meaning there: a browser test
 * that can only type an address asks for a fault or an outcome in its own sandbox so.
 */
export function isSandboxRecipientDomain(domain: string): boolean {
  return domain.endsWith(`.${SANDBOX_RECIPIENT_DOMAIN}`);
}

/**
 * `name` itself when it is a sandbox's name; else an `invalid_request` failure saying what `where` gave. `default` is
 * reserved: the default sandbox holds the rules and webhooks that apply in every sandbox, so a client that named it
 * would reach every other sandbox's sends (a fault rule failing another worker's, a webhook hearing its events).
 */
export function checkSandboxName(name: string, where: string): string {
  if (name === DEFAULT_SANDBOX)
    throw new DomainFailure(
      "invalid_request",
      `${where} names the sandbox "${DEFAULT_SANDBOX}", which is reserved: it is where a request that names no sandbox goes, and its rules apply in every sandbox. Leave the sandbox out, or name another`,
    );
  if (SANDBOX_NAME.test(name)) return name;
  throw new DomainFailure("invalid_request", `${where} must be a sandbox name: 1 to 64 letters, digits, "_", "." or "-", got ${JSON.stringify(name)}`);
}

/**
 * The sandbox a recipient names by the rule above, or undefined for any other address. A name no
 * address can carry (docs/sandboxes.md) is an `invalid_request` failure saying so, before the contract
 * would refuse the address as invalid_recipient.
 */
export function sandboxOfRecipient(to: string): string | undefined {
  const at = to.lastIndexOf("@");
  if (at < 0 || !isSandboxRecipientDomain(to.slice(at + 1).toLowerCase())) return undefined;
  const name = checkSandboxName(to.slice(at + 1, to.length - SANDBOX_RECIPIENT_DOMAIN.length - 1), `The sandbox named by to ${JSON.stringify(to)}`);
  const problem = sandboxAddressProblem(name);
  if (problem !== undefined)
    throw new DomainFailure(
      "invalid_request",
      `The sandbox ${JSON.stringify(name)} cannot be named by an address: ${problem.why}; send to its base URL (/sandbox/${name}/send) or with the X-Sendmock-Sandbox header instead, or ${problem.rename}`,
    );
  return name;
}

/** The names of the sandboxes in use, bounded; shared by replicas on Redis. */
export interface SandboxRegistry {
  /** Adds `name` unless it is known or `max` are known already; resolves with whether it is known now. */
  claim(name: string, max: number): Promise<boolean>;
  /** Every known name, sorted. */
  names(): Promise<string[]>;
  /** Forgets every name. */
  clear(): Promise<void>;
  /** Forgets `name` alone (nothing when it is not known), so it counts toward the bound no more. */
  release(name: string): Promise<void>;
  /** Calls `listener` with each name claimed for the first time (on a shared store, by any replica); returns the unsubscribe. */
  onClaimed(listener: (name: string) => void): () => void;
  /** Calls `listener` after every clear (on a shared store, by any replica); returns the unsubscribe. */
  onCleared(listener: () => void): () => void;
  /** Calls `listener` with each name released (on a shared store, by any replica); returns the unsubscribe. */
  onReleased(listener: (name: string) => void): () => void;
}

/** The failure of a new sandbox past `max_sandboxes`. */
export function tooManySandboxes(name: string, max: number): DomainFailure {
  return new DomainFailure(
    "invalid_request",
    `Sandbox ${JSON.stringify(name)} would be one more than max_sandboxes (${max}): DELETE /_mock/sandboxes/NAME forgets one, POST /_mock/reset without a sandbox forgets them all`,
  );
}

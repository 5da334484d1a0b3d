// Rules that pick what happens to a send (fault rules, outcome rules): matching by globs and an
// API-key digest, `times` counted down, a seeded `probability` draw, at most `max_rules`; the
// stores keep them whatever their kind.

import { randomUUID } from "node:crypto";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { apiKeyHint } from "./api-keys.js";
import { sha256 } from "./digest.js";
import type { RuleCommon } from "../wire.js";
import { compileGlob } from "./glob.js";

export const DEFAULT_MAX_RULES = 1000;

/** What one request offers to the rules. */
export interface RuleTarget {
  to: string;
  templateId: string;
  apiKey: string;
}

/** What every rule has, as written (admin.yaml bounds `times` to a billion, so the counters stay plain integers). */
export interface RuleInput {
  match?: { to?: string; template_id?: string; api_key?: string };
  times?: number;
  probability?: number;
}

/** What every rule has, as kept and shown (the wire's common part of a fault and an outcome rule). */
export type RuleView = RuleCommon;

/** One kind of rule: its name (in messages and Redis keys), its id prefix and its own fields. */
export interface RuleKind<I extends RuleInput, V extends RuleView> {
  /** `fault`, `outcome` */
  name: string;
  /** `flt_`, `out_` */
  idPrefix: string;
  /** The view of `input`, given the fields every rule has. */
  view(input: I, common: RuleView): V;
}

/** A rule ready to be matched: its public view, its globs compiled, its API key as a digest. */
export interface CompiledRule<V extends RuleView> {
  view: V;
  /** Its view's size as JSON: what max_rule_bytes counts. */
  bytes: number;
  /** Kept instead of the key itself, which no store may hold. */
  apiKeyDigest: string | undefined;
  matchesTo: ((to: string) => boolean) | undefined;
  matchesTemplate: ((templateId: string) => boolean) | undefined;
}

/** A new rule's view and key digest: what a store keeps. */
export function newRule<I extends RuleInput, V extends RuleView>(
  kind: RuleKind<I, V>,
  input: I,
  source: RuleView["source"],
  now: Date,
): { view: V; apiKeyDigest: string | undefined } {
  const apiKey = input.match?.api_key;
  const common: RuleView = {
    id: `${kind.idPrefix}${randomUUID()}`,
    match: { to: input.match?.to ?? null, template_id: input.match?.template_id ?? null },
    api_key_hint: apiKey === undefined ? null : apiKeyHint(apiKey),
    times: input.times ?? null,
    probability: input.probability ?? 1,
    source,
    created_at: now.toISOString(),
  };
  return { view: kind.view(input, common), apiKeyDigest: apiKey === undefined ? undefined : sha256(apiKey, "hex") };
}

export function compileRule<V extends RuleView>(view: V, apiKeyDigest: string | undefined): CompiledRule<V> {
  const glob = (pattern: string | null) => (pattern === null ? undefined : compileGlob(pattern));
  return { view, bytes: JSON.stringify(view).length, apiKeyDigest, matchesTo: glob(view.match.to), matchesTemplate: glob(view.match.template_id) };
}

/** Whether `rule` applies to `target`; the key digest is computed only when a rule names a key. */
export function ruleMatches(rule: CompiledRule<RuleView>, target: RuleTarget, keyDigest: () => string): boolean {
  return (
    (rule.matchesTo?.(target.to) ?? true) &&
    (rule.matchesTemplate?.(target.templateId) ?? true) &&
    (rule.apiKeyDigest === undefined || rule.apiKeyDigest === keyDigest())
  );
}

/** The key digest of a target, computed once and only if a rule names a key. */
export function lazyKeyDigest(target: RuleTarget): () => string {
  let digest: string | undefined;
  return () => (digest ??= sha256(target.apiKey, "hex"));
}

/** A rule book's seeded generator: draws only for rules that ask for a probability, so adding a certain rule shifts nothing. */
export function createDraw(seed: number | null): { wins(rule: CompiledRule<RuleView>): boolean; reseed(): void } {
  const fixedSeed = seed ?? Math.floor(Math.random() * 2 ** 31);
  let generator = xoroshiro128plus(fixedSeed);
  return {
    wins: (rule) => rule.view.probability >= 1 || uniformFloat64(generator) < rule.view.probability,
    reseed: () => {
      generator = xoroshiro128plus(fixedSeed);
    },
  };
}

/** A deep copy of a rule's view (a `respond` rule holds a JSON body) that a caller may change without changing the stored rule. */
export function copyRule<V extends RuleView>(view: V): V {
  return structuredClone(view);
}

export interface RuleBookOptions<I extends RuleInput> {
  /** The rules of the config file, restored by reset. */
  initialRules: readonly I[];
  /** Same seed and same requests give the same outcomes; null seeds at random. */
  seed: number | null;
  /** Most rules at once (default 1000); adding past it is refused (`invalid_request`). */
  maxRules?: number;
  now?: () => Date;
}

/** The rules of one kind. Asynchronous like the other state, so a shared store can count `times` across replicas. */
export interface RuleBook<I extends RuleInput, V extends RuleView> {
  add(input: I): Promise<V>;
  list(): Promise<V[]>;
  /** How many rules it holds, without copying them (max_rules' count of every sandbox's). */
  count(): Promise<number>;
  /** The size of its rules as JSON, without copying them (max_rule_bytes' count of every sandbox's). */
  bytes(): Promise<number>;
  /** False when no rule has that id. */
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
  /** Back to the rules of the config and a freshly seeded generator. */
  reset(): Promise<void>;
  /**
   * The rules that apply to `target`, in order: each matched, won its draw and had one use
   * taken. `accept` says after each whether to look for more.
   */
  apply(target: RuleTarget, accept: (rule: V) => "more" | "done"): Promise<void>;
}

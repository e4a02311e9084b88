// This module is browser compatible.
// A client's memory that it has put a bundle with a freshness statement in
// force (docs/security.md "Signed freshness", "Stripped statements"): from
// then on it requires a statement of every bundle, as if requireFreshness
// were set. A protection, once in force, is not given up by the party it
// protects against: whoever can strip a statement (it is outside the
// bundle's signature) must not thereby take a client back to before it had
// one, un-expire a bundle, or slip in an older bundle relabelled.
import { PolicyError } from "../public/policy_error.ts";
import type { BundleStatus } from "../verify/load_bundle.ts";

/** The bundle with a statement whose coming into force turned the requirement on. */
export interface StatementInForce {
  /** Its signed `bundleVersion`. */
  bundleVersion: number;
  /** Its checksum, `sha256:<hex>`. */
  checksum: string;
  /** When it came into force, in ms since the epoch (wall clock). */
  at: number;
}

/** Whether, and why, a client requires a freshness statement of every bundle. */
export class FreshnessMemory {
  #because: string | null;
  #first: StatementInForce | null = null;
  readonly #undo: string;

  /**
   * `because`: why statements are required from the start (a remote client's
   * record of an earlier run, say), or null. `undo`: how an operator stops
   * using statements on purpose, for the message.
   */
  constructor(because: string | null, undo: string) {
    this.#because = because;
    this.#undo = undo;
  }

  /** True once a statement is required. */
  get required(): boolean {
    return this.#because !== null;
  }

  /** The bundle whose statement turned the requirement on in this run, if one did. */
  get first(): StatementInForce | null {
    return this.#first;
  }

  /**
   * `BUNDLE_FRESHNESS_MISSING` for `candidate` (described by `what`) when it
   * carries no statement and one is required; else null.
   */
  refuse(candidate: BundleStatus, what: string): PolicyError | null {
    if (this.#because === null || candidate.freshness !== null) return null;
    return new PolicyError(
      "BUNDLE_FRESHNESS_MISSING",
      `${what} carries no freshness statement, and this client requires one because ${this.#because}: once a client has had a statement in force it requires one of every bundle, so a statement stripped from a bundle (it is outside the signature) is refused, as with requireFreshness (docs/security.md "Signed freshness"). Publish bundles with a statement (policy sign --expires-in); to stop using statements on purpose, ${this.#undo}`,
    );
  }

  /** A bundle came into force at `at` (wall ms): one with a statement turns the requirement on. */
  inForce(status: BundleStatus, at: number): void {
    const freshness = status.freshness;
    if (this.#because !== null || freshness === null) return;
    this.#first = { bundleVersion: freshness.bundleVersion, checksum: status.checksum, at };
    this.#because =
      `a bundle with one (bundleVersion ${freshness.bundleVersion}, ${status.checksum}) came into force at ${
        new Date(at).toISOString()
      }`;
  }
}

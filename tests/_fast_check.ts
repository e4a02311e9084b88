/**
 * fast-check, seeded: the one way tests import it. Every property that does
 * not name a seed of its own draws from `POLICY_TEST_SEED` when set (and
 * readable), else from {@link PROPERTY_SEED}, so that `deno task test` and
 * `test:long` run the same cases on every run and a failure is not news
 * about an unrelated change. To look further, run with another seed
 * (`POLICY_TEST_SEED=7 deno task test`); fast-check's failure report names
 * the seed and the path to replay.
 *
 * `tests/deterministic_test.ts` checks that no test imports `fast-check`
 * but through this module.
 *
 * @module
 */
import fc from "fast-check";
import { testSeed } from "./_random.ts";

/** The seed of the properties that name none, unless `POLICY_TEST_SEED` says otherwise. */
export const PROPERTY_SEED: number = testSeed(0x29_5eed);

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: PROPERTY_SEED });

export default fc;

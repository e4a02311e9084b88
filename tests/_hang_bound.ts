/**
 * The one bound a test puts on real time: on a hang, never on speed (speed is
 * measured by `bench/`, ARCHITECTURE.md "Tests"). Something that must end
 * (a refusal, a timeout of ours reached, a flood reported) ends well within
 * it even on a loaded CI machine, and a hang fails the test instead of
 * stalling the run. `tests/test_rules_test.ts` checks that no test
 * bounds an elapsed time by anything else.
 */
export const HANG_BOUND_MS = 30_000;

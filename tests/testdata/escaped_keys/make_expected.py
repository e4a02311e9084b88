#!/usr/bin/env python3
"""The checksum of bundle.json (and of the bundle built from draft.json) by an independent parser.

Regenerate with:  python3 tests/testdata/escaped_keys/make_expected.py > tests/testdata/escaped_keys/expected.json

Python's json module reads "\\u0065lseEffect" as the key elseEffect whatever it parsed before,
and the canonical payload is computed by the independent implementation of
tests/testdata/canonical/make_vectors.py (no code shared with the TypeScript engine).
"""
import hashlib, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "canonical"))
from make_vectors import payload  # noqa: E402

with open(os.path.join(here, "bundle.json"), encoding="utf-8") as f:
    bundle = json.load(f)
rule = bundle["policies"][0]["rules"][0]
assert "elseEffect" in rule and "\\u0065lseE" not in rule, sorted(rule)
digest = hashlib.sha256(payload(bundle).encode("utf-8")).hexdigest()
json.dump({
    "generatedBy": "python3 tests/testdata/escaped_keys/make_expected.py",
    "checksum": "sha256:" + digest,
    "ruleKeys": sorted(rule),
}, sys.stdout, indent=1)
sys.stdout.write("\n")

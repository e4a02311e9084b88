#!/usr/bin/env python3
"""Independent canonical-payload vectors (no code shared with the TypeScript engine).

Regenerate with:  python3 tests/testdata/canonical/make_vectors.py > tests/testdata/canonical/vectors.json

Canonical payload (docs/bundle-format.md, "Canonical payload, checksum, ETag"): {schemaVersion, orgId?, projectId?, env,
policies: [{policyKey, activeVersion, defaults?, rules}]}, keys sorted at every depth by
UTF-16 code unit order, no whitespace, JSON escaping, UTF-8, SHA-256, lowercase hex.
For keys inside the Basic Multilingual Plane, code-point order (Python's sort_keys) and
UTF-16 order agree, so the plain json.dumps(sort_keys=True) result is also checked.
"""
import copy, hashlib, json, sys

def utf16_key(s):
    return s.encode("utf-16-be")

def canon(v):
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(v[k])
                              for k in sorted(v, key=utf16_key)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)

def projection(b):
    p = {"schemaVersion": b["schemaVersion"], "env": b["env"], "policies": []}
    for k in ("orgId", "projectId"):
        if k in b:
            p[k] = b[k]
    for pol in b["policies"]:
        q = {"policyKey": pol["policyKey"], "activeVersion": pol["activeVersion"], "rules": pol["rules"]}
        if "defaults" in pol:
            q["defaults"] = pol["defaults"]
        p["policies"].append(q)
    return p

def payload(b):
    return canon(projection(b))

def bmp_only(s):
    return all(ord(c) < 0x10000 for c in s)

def main():
    base = {
        "schemaVersion": 1, "env": "prod", "orgId": "acme", "projectId": "shop",
        "generatedAt": "2026-11-21T10:00:00Z", "bundleVersion": 4, "etag": "\"old\"",
        "policies": [
            {"policyKey": "billing.invoice.create", "activeVersion": 3, "friendlyName": "Invoices", "status": "active",
             "defaults": {"effect": "throttle", "throttle": {"limit": 10, "windowSeconds": 60, "key": "tenant"}},
             "rules": [
                 {"id": "free", "status": "active", "priority": 10, "description": "Frei – «free» plan \"quoted\" \\ back\tslash\u2028",
                  "target": {"service": "billing", "resource": "invoice", "action": "create"},
                  "when": {"op": "and", "conditions": [{"op": "eq", "path": "ctx.plan", "value": "free"},
                                                       {"op": "gt", "path": "seats", "value": 5.5},
                                                       {"op": "in", "path": "region", "values": ["eu", "us", None, True, -3]}]},
                  "effect": {"type": "deny"}, "elseEffect": {"type": "allow"}},
                 {"id": "ctrl", "status": "disabled", "priority": -1,
                  "target": {"service": "billing", "resource": "invoice", "action": "create"},
                  "effect": {"type": "custom", "value": "{\"a\":[1,2]}\u0001\u001f\u007f"}},
             ]},
            {"policyKey": "search", "activeVersion": 1,
             "rules": [{"id": "ks", "status": "active", "priority": 100, "zExtra": {"b": 1, "a": [{"d": 0, "c": 1}]},
                        "target": {"service": "search", "resource": "*", "action": "q"},
                        "effect": {"type": "kill_switch", "killSwitch": {"service": "search", "reason": "日本語 🚨"}}}]},
        ],
        "signature": {"algorithm": "HMAC_SHA256", "keyId": "k1", "value": "00"},
        "checksum": "sha256:" + "0" * 64,
    }

    def variant(name, fn, same):
        b = copy.deepcopy(base)
        fn(b)
        return {"name": name, "bundle": b, "sameAsBase": same}

    def setp(path, value):
        def f(b):
            o = b
            for k in path[:-1]:
                o = o[k]
            o[path[-1]] = value
        return f

    def delp(path):
        def f(b):
            o = b
            for k in path[:-1]:
                o = o[k]
            del o[path[-1]]
        return f

    variants = [
        variant("generatedAt changed", setp(["generatedAt"], "2030-01-01T00:00:00Z"), True),
        variant("bundleVersion changed", setp(["bundleVersion"], 99), True),
        variant("etag changed", setp(["etag"], "\"new\""), True),
        variant("checksum changed", setp(["checksum"], "sha256:" + "f" * 64), True),
        variant("signature removed", delp(["signature"]), True),
        variant("unknown top-level field added", setp(["deployedBy"], "ci"), True),
        variant("policy friendlyName changed", setp(["policies", 0, "friendlyName"], "Other"), True),
        variant("policy status removed", delp(["policies", 0, "status"]), True),
        variant("env changed", setp(["env"], "staging"), False),
        variant("orgId changed", setp(["orgId"], "acme2"), False),
        variant("orgId removed", delp(["orgId"]), False),
        variant("projectId changed", setp(["projectId"], "shop2"), False),
        variant("activeVersion changed", setp(["policies", 0, "activeVersion"], 4), False),
        variant("policyKey changed", setp(["policies", 1, "policyKey"], "search2"), False),
        variant("defaults changed", setp(["policies", 0, "defaults", "throttle", "limit"], 11), False),
        variant("defaults removed", delp(["policies", 0, "defaults"]), False),
        variant("rule priority changed", setp(["policies", 0, "rules", 0, "priority"], 11), False),
        variant("rule status changed", setp(["policies", 0, "rules", 1, "status"], "active"), False),
        variant("rule description changed (rules are included whole)", setp(["policies", 0, "rules", 0, "description"], "x"), False),
        variant("unknown rule field changed (rules are included whole)", setp(["policies", 1, "rules", 0, "zExtra", "b"], 2), False),
        variant("condition value changed", setp(["policies", 0, "rules", 0, "when", "conditions", 1, "value"], 6), False),
        variant("condition value type changed (5 to \"5\")", setp(["policies", 0, "rules", 0, "when", "conditions", 1, "value"], "5.5"), False),
        variant("rule order changed", lambda b: b["policies"][0]["rules"].reverse(), False),
        variant("policy order changed", lambda b: b["policies"].reverse(), False),
        variant("target changed", setp(["policies", 1, "rules", 0, "target", "resource"], "catalog"), False),
    ]

    # Key order: UTF-16 code unit order differs from code-point order for astral characters
    # versus U+E000..U+FFFF: "\U0001F600" (surrogates D83D..) sorts before "\uFF01" in UTF-16.
    unicode_keys = copy.deepcopy(base)
    unicode_keys["policies"][1]["rules"][0]["zExtra"] = {"\uff01": 1, "\U0001f600": 2, "a": 3, "B": 4, "": 5}
    variants.append({"name": "astral and high-BMP keys sorted by UTF-16 code units", "bundle": unicode_keys, "sameAsBase": False})

    out = {"generatedBy": "python3 tests/testdata/canonical/make_vectors.py", "vectors": []}
    for v in [{"name": "base", "bundle": base, "sameAsBase": True}] + variants:
        p = payload(v["bundle"])
        if bmp_only(json.dumps(v["bundle"], ensure_ascii=False)):
            assert p == json.dumps(projection(v["bundle"]), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(p.encode("utf-8")).hexdigest()
        out["vectors"].append({**v, "payload": p, "checksum": "sha256:" + digest, "etag": "\"" + digest + "\""})

    # The base bundle as differently formatted text: reordered keys, other whitespace.
    def reorder(o):
        if isinstance(o, dict):
            return {k: reorder(o[k]) for k in reversed(list(o))}
        if isinstance(o, list):
            return [reorder(x) for x in o]
        return o
    out["baseTexts"] = [
        json.dumps(base, indent=4, ensure_ascii=True),
        json.dumps(reorder(base), separators=(",", ":"), ensure_ascii=False),
        "\n\n  " + json.dumps(reorder(base), indent="\t", ensure_ascii=False) + "\r\n",
    ]
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

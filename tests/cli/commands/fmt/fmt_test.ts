/**
 * `policy fmt` (docs/cli.md, "fmt"): which files it formats, the one
 * layout the draft writer uses, comments kept, bundles and what is not a
 * regular file left alone, `--check` for CI and `--diff` (checked against
 * GNU `diff -u`, an independent tool, when it may be run).
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import fc from "../../../_fast_check.ts";
import { parseJson } from "../../../../src/engine/parse_json.ts";
import { commentsOf, formatJsonc } from "../../../../src/authoring/format_jsonc.ts";
import { unifiedDiff } from "../../../../src/cli/commands/fmt/line_diff.ts";
import { assertError, assertShape, draftWith, rule, scratch } from "../../_helpers.ts";
import { symlink } from "../../../clients/_helpers.ts";

const canRun = (command: string) =>
  Deno.permissions.querySync({ name: "run", command }).state === "granted";

const FMT_SHAPE = {
  formatVersion: "number",
  check: "boolean",
  diff: "boolean",
  passed: "boolean",
  files: "array",
  summary: "object",
  warnings: "array",
};
const FILE_SHAPE = {
  path: "string",
  kind: "string|null",
  status: "string",
  reason: "string|null",
  diff: "string|null",
};

const compact = (value: unknown) => JSON.stringify(value);
const pretty = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

Deno.test("fmt formats the draft, the config and the rule and suite files below the working folder, and nothing else", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  await s.write("policy.config.json", compact({ build: { env: "prod" } }));
  await s.write("policy/rules/paid.rule.json", compact(rule("paid")));
  await s.write("policy/billing.suite.json", compact({ name: "b", scenarios: [] }));
  // Not its business: other JSON, dependencies, hidden folders, a bundle.
  await s.write("package.json", compact({ name: "shop" }));
  await s.write("node_modules/x/y.rule.json", compact(rule("dep")));
  await s.write(".cache/z.suite.json", compact({ name: "hidden", scenarios: [] }));
  const untouched = ["package.json", "node_modules/x/y.rule.json", ".cache/z.suite.json"];

  const check = await s.json(["fmt", "--check"]);
  assert.equal(check.code, 1, check.stderr);
  assertShape(check.doc, FMT_SHAPE);
  for (const f of check.doc.files as unknown[]) assertShape(f, FILE_SHAPE, "files[]");
  const byName = Object.fromEntries(
    (check.doc.files as { path: string; kind: string; status: string }[]).map((f) => [
      path.relative(s.wf, f.path),
      [f.kind, f.status],
    ]),
  );
  assert.deepEqual(byName, {
    "policy-drafts.json": ["draft", "unchanged"],
    "policy.config.json": ["config", "unformatted"],
    "policy/billing.suite.json": ["suite", "unformatted"],
    "policy/rules/paid.rule.json": ["rule", "unformatted"],
  });
  assert.deepEqual(check.doc.summary, { files: 4, changed: 3, unchanged: 1, skipped: 0 });
  assert.equal(check.doc.passed, false);

  const text = await s.run(["fmt", "--check"]);
  assert.equal(text.code, 1);
  assert.deepEqual(text.stdout.trimEnd().split("\n"), [
    "not formatted: policy.config.json",
    "not formatted: policy/billing.suite.json",
    "not formatted: policy/rules/paid.rule.json",
    "4 files: 3 not formatted, 1 already formatted, 0 skipped; run 'policy fmt' to format them",
  ]);

  const fmt = await s.run(["fmt"]);
  assert.equal(fmt.code, 0, fmt.stderr);
  assert.match(fmt.stdout, /^formatted policy\/rules\/paid\.rule\.json$/m);
  assert.equal(await s.read("policy/rules/paid.rule.json"), pretty(rule("paid")));
  assert.equal(await s.read("policy.config.json"), pretty({ build: { env: "prod" } }));
  for (const file of untouched) assert.ok(!(await s.read(file)).includes("\n"), file);

  const again = await s.json(["fmt", "--check"]);
  assert.equal(again.code, 0);
  assert.equal(again.doc.passed, true);
});

Deno.test("a draft the CLI wrote is formatted, and fmt writes a draft exactly as the draft writer does", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a"), rule("b", { status: "disabled" })]);
  await s.run(["policies", "set-status", "--policy-key", "billing", "--rule-id", "b", "active"]);
  assert.equal((await s.run(["fmt", "--check"])).code, 0);
  const written = await s.read("policy-drafts.json");
  // Hand-edited into one line, fmt gives back the very bytes the CLI wrote.
  await s.write("policy-drafts.json", compact(JSON.parse(written)));
  assert.equal((await s.run(["fmt", "--check"])).code, 1);
  assert.equal((await s.run(["fmt"])).code, 0);
  assert.equal(await s.read("policy-drafts.json"), written);
});

Deno.test("fmt keeps every comment of a JSONC file (the config, a commented draft or rule)", async () => {
  await using s = await scratch();
  const config = [
    "// policy.config.json: shared with other tools",
    '{ "schemaVersion": 1,',
    '  "build": { "env": "prod", // where it runs',
    '    "signed": true, /* for now */ },',
    "",
    "  /* analyze */",
    '  "analyze": {"source": "src",},',
    "}",
  ].join("\n");
  await s.write("policy.config.json", config);
  const r = await s.run(["fmt", "policy.config.json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    await s.read("policy.config.json"),
    [
      "// policy.config.json: shared with other tools",
      "{",
      '  "schemaVersion": 1,',
      '  "build": {',
      '    "env": "prod", // where it runs',
      '    "signed": true /* for now */',
      "  },",
      "",
      "  /* analyze */",
      '  "analyze": {',
      '    "source": "src"',
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  // The commands still read it the same, and a second run changes nothing.
  assert.equal((await s.run(["fmt", "--check", "policy.config.json"])).code, 0);
  assert.equal((await s.run(["validate", "--help"])).code, 0);

  // A commented draft keeps its comments too (the edit commands drop them, and say so).
  await draftWith(s, [rule("a")]);
  const draft = await s.read("policy-drafts.json");
  await s.write(
    "policy-drafts.json",
    `// hand notes\n${draft.replace('"rules": [', '"rules": [ // the rules')}`,
  );
  assert.equal((await s.run(["fmt"])).code, 0);
  const formatted = await s.read("policy-drafts.json");
  assert.match(formatted, /^\/\/ hand notes\n/);
  assert.match(formatted, /"rules": \[ \/\/ the rules\n/);
  assert.deepEqual(parseJson(formatted, { comments: true }), JSON.parse(draft));
});

Deno.test("formatJsonc: the layout of JSON.stringify(v, null, 2), with every comment kept in order", () => {
  const json = fc.jsonValue({ maxDepth: 4 }).filter((v) => !Object.is(v, -0));
  // Without comments: exactly what JSON.stringify writes, whatever the spacing of the input.
  fc.assert(
    fc.property(json, fc.constantFrom("", " ", "\n", "\t "), (value, space) => {
      const text = JSON.stringify(value, null, space) ?? "null";
      assert.equal(formatJsonc(text), pretty(value));
    }),
    { numRuns: 300 },
  );
  // With comments between any two tokens: the same value, the same comments in the same order,
  // and formatting twice changes nothing.
  const commented = fc.tuple(json, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean()).map(
    ([value, at, trailing]) => {
      const tokens = JSON.stringify(value).match(/"(?:[^"\\]|\\.)*"|[{}[\]:,]|[^{}[\]:,"]+/g)!;
      if (trailing) {
        // A trailing comma (JSONC) before the first closing bracket of a non-empty container.
        const close = tokens.findIndex((t, i) =>
          "}]".includes(t) && !"{[".includes(tokens[i - 1]!)
        );
        if (close > 0) tokens.splice(close, 0, ",");
      }
      at.forEach((n, i) => {
        const where = n % (tokens.length + 1);
        const comment = i % 2 === 0 ? `/* c${i} */` : `// c${i}\n`;
        tokens.splice(where, 0, comment);
      });
      return tokens.join(" ");
    },
  );
  fc.assert(
    fc.property(commented, (text) => {
      const out = formatJsonc(text);
      assert.deepEqual(
        parseJson(out, { comments: true }),
        parseJson(text, { comments: true }),
        `${text}\n=>\n${out}`,
      );
      assert.deepEqual(commentsOf(out), commentsOf(text).map((c) => c.trimEnd()), out);
      assert.equal(formatJsonc(out), out, "stable");
    }),
    { numRuns: 300 },
  );
});

Deno.test("fmt never rewrites a bundle, a symbolic link or anything that is not a regular file", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  assert.equal((await s.run(["build"])).code, 0);
  const bundle = await s.read("policy-bundle.json");
  const target = await s.write("real.rule.json", compact(rule("r")));
  await symlink(target, path.join(s.wf, "link.rule.json"));
  const r = await s.json(["fmt", "policy-bundle.json", "link.rule.json"]);
  assert.equal(r.code, 0, r.stderr);
  const files = r.doc.files as {
    path: string;
    kind: string | null;
    status: string;
    reason: string;
  }[];
  assert.deepEqual(files.map((f) => [path.basename(f.path), f.kind, f.status]), [
    ["policy-bundle.json", "bundle", "skipped"],
    ["link.rule.json", null, "skipped"],
  ]);
  assert.match(files[0]!.reason, /it is a bundle: build and sign write bundles compact/);
  assert.match(files[1]!.reason, /it is a symbolic link; fmt rewrites regular files only/);
  assert.equal(await s.read("policy-bundle.json"), bundle);
  assert.ok((await Deno.lstat(path.join(s.wf, "link.rule.json"))).isSymlink);
  assert.equal(await s.read("real.rule.json"), compact(rule("r")));
  // The default set skips a bundle and the link too.
  const all = await s.json(["fmt"]);
  assert.equal(all.code, 0, all.stderr);
  assert.equal(await s.read("policy-bundle.json"), bundle);
  assert.ok((await Deno.lstat(path.join(s.wf, "link.rule.json"))).isSymlink);
  assert.equal(
    await s.read("real.rule.json"),
    pretty(rule("r")),
    "the link's target is a rule file",
  );

  if (canRun("mkfifo")) {
    const fifo = path.join(s.wf, "pipe.suite.json");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(made.code, 0);
    const piped = await s.json(["fmt", "pipe.suite.json"]);
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal((piped.doc.files as { status: string }[])[0]!.status, "skipped");
    assert.ok((await Deno.lstat(fifo)).isFifo, "the pipe is still a pipe");
  }
});

Deno.test("a file that does not parse stops fmt before anything is written", async () => {
  await using s = await scratch();
  await s.write("a.rule.json", compact(rule("a")));
  await s.write("b.rule.json", '{"id": "b",');
  const r = await s.json(["fmt"]);
  assertError(r, 2, "DOCUMENT_PARSE_ERROR");
  assert.match(r.stderr, /b\.rule\.json: it is not JSON/);
  assert.equal(await s.read("a.rule.json"), compact(rule("a")), "nothing was written");
  assertError(await s.run(["fmt", "missing.json"]), 2, "DOCUMENT_READ_ERROR");
});

Deno.test("fmt keeps the mode of the files it rewrites", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await using s = await scratch();
  const file = await s.write("a.rule.json", compact(rule("a")));
  await Deno.chmod(file, 0o600);
  assert.equal((await s.run(["fmt"])).code, 0);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
});

Deno.test("fmt --diff prints unified diffs and writes nothing", async () => {
  await using s = await scratch();
  await s.write("a.rule.json", compact(rule("a")));
  await s.write("b.rule.json", pretty(rule("b")));
  const r = await s.run(["fmt", "--diff"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      "--- a/a.rule.json",
      "+++ b/a.rule.json",
      "@@ -1 +1,13 @@",
      `-${compact(rule("a"))}`,
      "\\ No newline at end of file",
      ...pretty(rule("a")).trimEnd().split("\n").map((l) => `+${l}`),
      "2 files: 1 not formatted, 1 already formatted, 0 skipped",
      "",
    ].join("\n"),
  );
  assert.equal(await s.read("a.rule.json"), compact(rule("a")));
  const json = await s.json(["fmt", "--diff", "--check"]);
  assert.equal(json.code, 1);
  const [a, b] = json.doc.files as { diff: string | null }[];
  assert.match(a!.diff!, /^--- a\/a\.rule\.json\n\+\+\+ b\/a\.rule\.json\n@@ -1 \+1,13 @@\n/);
  assert.equal(b!.diff, null);
});

Deno.test({
  name: "fmt's diffs agree with GNU diff -u",
  ignore: !canRun("diff"),
  fn: async () => {
    await using s = await scratch();
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const cases: [string, string][] = [
      [compact(rule("a")), pretty(rule("a"))],
      [lines.join("\n") + "\n", lines.join("\n") + "\n"],
      [
        lines.join("\n") + "\n",
        lines.map((l, i) => i === 3 ? "changed" : l).filter((_, i) => i !== 20)
          .flatMap((l, i) => i === 30 ? [l, "added"] : [l]).join("\n"),
      ],
      ["a\nb\nc\n", "c\nb\na\n"],
      ["", "x\n"],
    ];
    for (const [before, after] of cases) {
      const a = await s.write("before.txt", before);
      const b = await s.write("after.txt", after);
      const gnu = new TextDecoder().decode(
        (await new Deno.Command("diff", { args: ["-u", a, b], stdout: "piped" }).output()).stdout,
      );
      const ours = unifiedDiff(before, after, "x");
      const body = (text: string) => text.split("\n").slice(2).join("\n");
      assert.equal(body(ours), body(gnu), `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
    }
  },
});

Deno.test("fmt formats the configured draft wherever draft.path puts it", async () => {
  await using s = await scratch();
  await s.write("policy.config.json", pretty({ draft: { path: "../drafts/policy-drafts.json" } }));
  assert.equal((await s.run(["working-folder", "init"])).code, 0);
  const draft = path.join(s.root, "drafts", "policy-drafts.json");
  const written = await Deno.readTextFile(draft);
  await Deno.writeTextFile(draft, compact(JSON.parse(written)));
  const check = await s.json(["fmt", "--check"]);
  assert.equal(check.code, 1);
  assert.deepEqual(
    (check.doc.files as { path: string; kind: string }[]).map((f) => [f.path, f.kind]),
    [[draft, "draft"], [path.join(s.wf, "policy.config.json"), "config"]],
  );
  assert.equal((await s.run(["fmt"])).code, 0);
  assert.equal(await Deno.readTextFile(draft), written);
});

Deno.test("fmt finds the files the README and the walkthrough write: suite.json and *.rule.json", async () => {
  await using s = await scratch();
  const readme = await Deno.readTextFile(new URL("../../../../README.md", import.meta.url));
  // The files the README's quick start writes, by the names it gives them.
  const written = [...readme.matchAll(/cat > \$SHOP\/([\w.-]+\.json) <</g)].map((m) => m[1]!);
  assert.ok(written.length >= 2, `the README writes ${written.join(", ")}`);
  for (const name of written) {
    await s.write(
      name,
      name.includes("suite") ? compact({ name: "s", scenarios: [] }) : compact(rule("r")),
    );
  }
  // And the walkthrough's rules and suite, as examples/service holds them.
  const service = new URL("../../../../examples/service/policy/", import.meta.url);
  for await (const entry of Deno.readDir(new URL("rules/", service))) {
    await s.write(`policy/rules/${entry.name}`, compact(rule(entry.name)));
  }
  await s.write("policy/suite.json", compact({ name: "walkthrough", scenarios: [] }));
  await s.write("notes.json", compact({ name: "not a policy document" }));
  const check = await s.json(["fmt", "--check"]);
  const found = (check.doc.files as { path: string }[]).map((f) => path.relative(s.wf, f.path));
  for (const name of written) assert.ok(found.includes(name), `${name} in ${found.join(", ")}`);
  assert.ok(found.includes("policy/suite.json"), found.join(", "));
  assert.equal(found.filter((f) => f.startsWith("policy/rules/")).length, 6, found.join(", "));
  assert.ok(!found.includes("notes.json"));
});

Deno.test("fmt formats a commented file with CRLF line endings (written on Windows)", async () => {
  await using s = await scratch();
  await draftWith(s, [rule("a")]);
  const lf = '{ // the paid plans\n  "id": "paid", /* kept */ "status": "active",\n' +
    '  "priority": 1, "target": {"service": "billing", "resource": "invoice", "action": "create"},\n' +
    '  "effect": {"type": "allow"} }\n';
  await s.write("crlf.rule.json", lf.replaceAll("\n", "\r\n"));
  await s.write("lf.rule.json", lf);
  const r = await s.json(["fmt"]);
  assert.equal(r.code, 0, r.stderr);
  const status = Object.fromEntries(
    (r.doc.files as { path: string; status: string; reason: string | null }[]).map((
      f,
    ) => [path.basename(f.path), [f.status, f.reason]]),
  );
  assert.deepEqual(status["crlf.rule.json"], ["formatted", null]);
  // Formatted as the same file with LF endings is.
  assert.equal(await s.read("crlf.rule.json"), await s.read("lf.rule.json"));
  assert.deepEqual(commentsOf(await s.read("crlf.rule.json")), ["// the paid plans", "/* kept */"]);
});

Deno.test("fmt leaves a file as it is when formatting would change what it holds", async () => {
  await using s = await scratch();
  // A draft without comments is written as the draft writer writes it, by JSON.stringify: 1e400
  // would become null, and -0 would become 0.
  const overflow = '{"schemaVersion":"1.0","policies":[],"limit":1e400}';
  const negativeZero = '{"schemaVersion":"1.0","policies":[],"offset":-0}';
  for (const draft of [overflow, negativeZero]) {
    await s.write("policy-drafts.json", draft);
    // Any other file keeps a number it cannot write back as it was written.
    await s.write("big.rule.json", '{"id":"big","priority":1e400}');
    const r = await s.json(["fmt", "policy-drafts.json", "big.rule.json"]);
    assert.equal(r.code, 0, r.stderr);
    const [skipped, formatted] = r.doc.files as { kind: string; status: string; reason: string }[];
    assert.deepEqual([skipped!.kind, skipped!.status], ["draft", "skipped"]);
    assert.equal(
      skipped!.reason,
      "formatting would change what it means (a number JSON cannot write back as it is); it was left as it is",
    );
    assert.equal(await s.read("policy-drafts.json"), draft);
    assert.deepEqual([formatted!.kind, formatted!.status], ["rule", "formatted"]);
    assert.equal(await s.read("big.rule.json"), '{\n  "id": "big",\n  "priority": 1e400\n}\n');
  }
  const text = await s.run(["fmt", "policy-drafts.json"]);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(
    text.stdout,
    "skipped policy-drafts.json: formatting would change what it means (a number JSON cannot write back as it is); it was left as it is\n" +
      "1 file: 0 formatted, 0 already formatted, 1 skipped\n",
  );
});

// The code examples of README.md and docs/, as written, type-checked for a
// Node project against the installed npm package (the Deno side is
// tests/docs/doc_examples_test.ts, which also bounds the examples that are
// not compiled and checks that both sides compile the same blocks).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { codeExamples, exampleFileName, exampleFiles } from "../docs/_doc_examples.mjs";
import { denoJson, NODE_PROJECT, root, typeCheck } from "./_package.mjs";
import { longOnly } from "./_long.mjs";

test(
  "every code example of README.md and docs/ type-checks for Node against the installed package",
  {
    skip: longOnly,
  },
  () => {
    const sources = {};
    for (const file of exampleFiles(readdirSync(join(root, "docs")))) {
      for (const example of codeExamples(readFileSync(join(root, file), "utf8"))) {
        if (example.ignored === null) sources[exampleFileName(file, example)] = example.code;
      }
    }
    assert.ok(Object.keys(sources).length >= 20, `${Object.keys(sources).length} examples`);
    typeCheck("docs", sources, {
      ...NODE_PROJECT,
      // The project's own strictness (deno.json), which `deno check` applies on the Deno side.
      ...denoJson.compilerOptions,
      // Each example is a module of its own, and a JavaScript one is checked as well.
      moduleDetection: "force",
      allowJs: true,
      checkJs: true,
    });
  },
);

// The code examples of the project's markdown (README.md, docs/*.md, the npm
// README), found the way `deno check --doc-only` finds them, for the tests
// that compile them: tests/docs/doc_examples_test.ts (Deno) and
// tests/node/docs_examples.test.mjs (tsc against the installed npm package).
// Plain JavaScript, so that both runtimes import it.

/** The languages of the fenced blocks Deno type-checks, by the extension their file gets. */
export const EXAMPLE_LANGUAGES = {
  ts: ".ts",
  typescript: ".ts",
  mts: ".mts",
  cts: ".cts",
  tsx: ".tsx",
  js: ".js",
  javascript: ".js",
  mjs: ".mjs",
  cjs: ".cjs",
  jsx: ".jsx",
};

/** The markdown files whose examples are compiled, from the repository root. */
export function exampleFiles(docsFileNames) {
  return [
    "README.md",
    ...docsFileNames.filter((n) => n.endsWith(".md")).sort().map((n) => `docs/${n}`),
  ];
}

/**
 * The code examples of `markdown`: each fenced block (``` or ~~~, indented at
 * most three spaces) whose language is one of {@link EXAMPLE_LANGUAGES}.
 * `line` is the line of the opening fence and `end` the line after the
 * closing one (1-based, as Deno names a block: `file.md#line-end.ts`).
 * `ignored` is null for a block that is compiled, else the reason its info
 * string gives after `ignore --` ("" when it gives none): "```ts ignore --
 * needs fastify, which the project does not install".
 *
 * @param {string} markdown
 * @returns {{ language: string, extension: string, line: number, end: number, code: string, ignored: string | null }[]}
 */
export function codeExamples(markdown) {
  const lines = markdown.split("\n");
  const examples = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, fence, info] = open;
    if (fence[0] === "`" && info.includes("`")) continue; // an inline code span, not a fence
    let close = i + 1;
    const closing = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`);
    while (close < lines.length && !closing.test(lines[close])) close++;
    const [language = "", ...attributes] = info.trim().split(/\s+/);
    const extension = EXAMPLE_LANGUAGES[language.toLowerCase()];
    if (extension !== undefined) {
      const ignoreAt = attributes.indexOf("ignore");
      examples.push({
        language: language.toLowerCase(),
        extension,
        line: i + 1,
        end: Math.min(close, lines.length - 1) + 2,
        code: lines.slice(i + 1, close).join("\n") + "\n",
        ignored: ignoreAt < 0
          ? null
          : attributes[ignoreAt + 1] === "--"
          ? attributes.slice(ignoreAt + 2).join(" ")
          : "",
      });
    }
    i = close;
  }
  return examples;
}

/** A file name for an example: `docs/remote.md` line 9 → `docs_remote_md_9.ts`. */
export function exampleFileName(file, example) {
  return `${file.replace(/[^A-Za-z0-9]+/g, "_")}_${example.line}${example.extension}`;
}

/**
 * The README of the npm package, rendered from `tools/npm_readme.md` by
 * `build_npm.ts`. On the registry's page a relative link leads nowhere (the
 * tarball has no `docs/`), so every link to a file of the repository becomes
 * an absolute link into the repository; a link to a missing file or heading,
 * a relative link left over, or a code example that imports `./…` or names
 * `Deno` fails the build. The template's code examples do real I/O, so
 * `deno test --doc` does not run them (deno.json `test.exclude`); the Node
 * tests type-check them against the installed package instead.
 *
 * @module
 */

/** Where the repository's files are browsed, and how to check them. */
export interface ReadmeTarget {
  /** The repository's web address, without a trailing slash. */
  repositoryUrl: string;
  /** The branch or tag the links point into. */
  ref: string;
  /** The text of a repository file (path relative to its root), or undefined when missing. */
  readFile(path: string): string | undefined;
}

/** A markdown link `[text](target)`, outside code spans. */
const LINK = /\]\(([^)\s]+)\)/g;

/**
 * The README with absolute links, or an `Error` listing every problem.
 * `template` links to repository files by their path from the repository
 * root (`docs/cli.md`, `docs/install.md#typescript`).
 */
export function renderNpmReadme(template: string, target: ReadmeTarget): string {
  const problems: string[] = [];
  const base = `${target.repositoryUrl}/blob/${target.ref}/`;
  const rendered = template.replace(LINK, (whole, link: string) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) return whole; // already absolute
    if (link.startsWith("#")) {
      if (!headingSlugs(template).has(link.slice(1))) problems.push(`${link}: no such heading`);
      return whole;
    }
    const [path, anchor] = link.split("#") as [string, string | undefined];
    const text = target.readFile(path);
    if (text === undefined) problems.push(`${link}: ${path} is not a file of the repository`);
    else if (anchor !== undefined && !headingSlugs(text).has(anchor)) {
      problems.push(`${link}: ${path} has no heading #${anchor}`);
    }
    return `](${base}${link})`;
  });
  for (const block of rendered.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    const code = block[2]!;
    if (/from\s+["']\.\.?\//.test(code)) problems.push("a code example imports a relative path");
    if (/\bDeno\.|\bdeno task\b/.test(code)) problems.push("a code example uses Deno");
  }
  if (problems.length > 0) throw new Error(`npm README:\n  ${problems.join("\n  ")}`);
  return rendered;
}

/** The anchors GitHub gives the headings of a markdown document. */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading === null) continue;
    const slug = heading[1]!.trim().toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    let unique = slug;
    for (let n = 1; slugs.has(unique); n++) unique = `${slug}-${n}`;
    slugs.add(unique);
  }
  return slugs;
}

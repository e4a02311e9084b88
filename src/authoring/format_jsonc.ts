/**
 * Canonical formatting of JSON with comments (`policy fmt`, docs/cli.md; the
 * playground's Format button, docs/playground.md):
 * the layout of `JSON.stringify(value, null, 2)` — two-space indent, one
 * member or element a line, `{}` and `[]` when empty, no trailing commas,
 * strings and numbers written as `JSON.stringify` writes them — with every
 * comment kept, in order: a comment on the line of a value stays after it,
 * a comment on its own line stays on its own line before what followed it,
 * and in a text with comments a single blank line between members is kept.
 * For a text without comments the result is exactly
 * `JSON.stringify(value, null, 2)` of the value it holds (a key given twice
 * aside: both members are kept as written, which reads the same, the last
 * one winning).
 *
 * The text must already have parsed (`parseJson` with `comments`); the
 * caller checks that the result means the same ({@link formattingChange};
 * {@link formatKeepingMeaning} does both).
 *
 * @module
 */
import { parseJson } from "../engine/parse_json.ts";
import { canonicalJson } from "../engine/canonical_payload.ts";

/** A token of a JSONC text. */
interface Token {
  kind: "punct" | "string" | "literal" | "comment";
  text: string;
  /** Line breaks in the white space before it. */
  breaks: number;
}

/** A comment and where it was. */
interface Comment {
  text: string;
  /** A blank line was before it. */
  blank: boolean;
}

type Node =
  | { kind: "scalar"; text: string }
  | { kind: "object" | "array"; open: Comment[]; items: Item[]; end: Comment[] };

/** A member of an object or an element of an array. */
interface Item {
  blank: boolean;
  leading: Comment[];
  key: string | null;
  value: Node;
  trailing: Comment[];
}

/** True when `text` has a comment outside strings. */
export function hasComments(text: string): boolean {
  return tokenize(text).some((t) => t.kind === "comment");
}

/**
 * The comments of `text`, in order, without trailing white space (for
 * checking that formatting kept them all: {@link formatJsonc} writes a
 * comment without it, and a line comment of a file with CRLF endings ends
 * with its `\r`).
 */
export function commentsOf(text: string): string[] {
  return tokenize(text).filter((t) => t.kind === "comment").map((t) => t.text.trimEnd());
}

/**
 * The canonical text of a JSONC document ({@link formatJsonc}), or `null`
 * when that text would not hold the same value with the same comments
 * ({@link formattingChange}). The playground's Format button.
 *
 * @throws {JsonParseError} When `text` is not JSON with comments.
 * @throws {PolicyError} `BUNDLE_INVALID` when its value has no canonical
 * JSON (a number that is not finite, nesting deeper than 512 levels): a
 * signed document could not hold it.
 * @throws {RangeError} When it is nested too deeply to format.
 */
export function formatKeepingMeaning(text: string): string | null {
  const value = parseJson(text, { comments: true });
  // The payload's own refusal, with its message: the page shows it.
  canonicalJson(value);
  const formatted = formatJsonc(text);
  return formattingChange(text, formatted, value) === null ? formatted : null;
}

/**
 * What formatting `before` into `after` would change, the one check of
 * `policy fmt` and {@link formatKeepingMeaning}: `"value"` when `after` does
 * not parse to `expected` (the value `before` holds, or what the caller
 * means to write instead, such as a draft with its `$schema`), member for
 * member in any order and number for number (`-0` is not `0`);
 * `"comments"` when it does not hold the comments of `before`, in order;
 * null when it means the same.
 */
export function formattingChange(
  before: string,
  after: string,
  expected: unknown,
): "value" | "comments" | null {
  if (!sameJson(parseJson(after, { comments: true }), expected)) return "value";
  const kept = commentsOf(before);
  const written = commentsOf(after);
  const same = written.length === kept.length && written.every((comment, i) => comment === kept[i]);
  return same ? null : "comments";
}

/**
 * Equality of two parsed JSON values: the same members (in any order), the
 * same elements, `Object.is` for the rest. Iterative: any depth.
 */
function sameJson(a: unknown, b: unknown): boolean {
  const pairs: [unknown, unknown][] = [[a, b]];
  while (pairs.length > 0) {
    const [x, y] = pairs.pop()!;
    if (Object.is(x, y)) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false;
      pairs.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/** The canonical text of a JSONC document that parses, with a final newline. */
export function formatJsonc(text: string): string {
  const tokens = tokenize(text);
  // Blank lines separate groups of commented members; without comments the layout is JSON.stringify's.
  const blanks = tokens.some((t) => t.kind === "comment");
  let at = 0;
  const comments = (sameLine: boolean): Comment[] => {
    const found: Comment[] = [];
    while (at < tokens.length && tokens[at]!.kind === "comment") {
      const token = tokens[at]!;
      if (sameLine && token.breaks > 0) break;
      found.push({ text: token.text.trimEnd(), blank: blanks && token.breaks > 1 });
      at++;
      // After a line comment, only a new line follows.
      if (sameLine && token.text.startsWith("//")) break;
    }
    return found;
  };
  const value = (leading: Comment[]): Node => {
    leading.push(...comments(false));
    const token = tokens[at++]!;
    if (token.text !== "{" && token.text !== "[") {
      return { kind: "scalar", text: canonicalScalar(token) };
    }
    const close = token.text === "{" ? "}" : "]";
    const node: Node = {
      kind: token.text === "{" ? "object" : "array",
      open: comments(true),
      items: [],
      end: [],
    };
    // Comments on the lines between a value and its comma go before the next item.
    let carried: Comment[] = [];
    for (;;) {
      const before = [...carried, ...comments(false)];
      carried = [];
      const next = tokens[at]!;
      if (next.text === close) {
        node.end = before;
        at++;
        return node;
      }
      const blank = (before[0]?.blank ?? false) ||
        (blanks && before.length === 0 && next.breaks > 1);
      let key: string | null = null;
      if (node.kind === "object") {
        key = canonicalScalar(tokens[at++]!);
        before.push(...comments(false));
        at++; // ":"
      }
      const item: Item = { blank, leading: before, key, value: value(before), trailing: [] };
      item.trailing = comments(true);
      carried = comments(false);
      if (tokens[at]?.text === ",") {
        at++;
        // Only one line comment fits on a line, and it ends it.
        const lineEnded = item.trailing.at(-1)?.text.startsWith("//") ?? false;
        if (carried.length === 0 && !lineEnded) item.trailing.push(...comments(true));
      }
      node.items.push(item);
    }
  };
  const top = comments(false);
  const root = value([]);
  const rest = comments(false);
  const lines = top.map((c) => c.text);
  const after = rest.length > 0 && tokens.length > 0 &&
      tokens[tokens.length - rest.length]!.breaks === 0
    ? rest.shift()
    : undefined;
  lines.push(emit(root, "") + (after === undefined ? "" : ` ${after.text}`));
  lines.push(...rest.map((c) => c.text));
  return lines.join("\n") + "\n";
}

function emit(node: Node, indent: string): string {
  if (node.kind === "scalar") return node.text;
  const [open, close] = node.kind === "object" ? ["{", "}"] : ["[", "]"];
  if (node.items.length === 0 && node.open.length === 0 && node.end.length === 0) {
    return open + close;
  }
  const inner = indent + "  ";
  const lines = [open + node.open.map((c) => ` ${c.text}`).join("")];
  node.items.forEach((item, i) => {
    if (item.blank && i > 0) lines.push("");
    item.leading.forEach((c, j) => {
      if (c.blank && j > 0) lines.push("");
      lines.push(inner + c.text);
    });
    lines.push(
      inner + (item.key === null ? "" : `${item.key}: `) + emit(item.value, inner) +
        (i < node.items.length - 1 ? "," : "") + item.trailing.map((c) => ` ${c.text}`).join(""),
    );
  });
  node.end.forEach((c, j) => {
    if (c.blank && (j > 0 || node.items.length > 0)) lines.push("");
    lines.push(inner + c.text);
  });
  lines.push(indent + close);
  return lines.join("\n");
}

/** A string or number as `JSON.stringify` writes it; a number it cannot write back stays as written. */
function canonicalScalar(token: Token): string {
  if (token.kind === "string") return JSON.stringify(parseJson(token.text) as string);
  if (token.text === "true" || token.text === "false" || token.text === "null") return token.text;
  const n = parseJson(token.text) as number;
  return Number.isFinite(n) && !Object.is(n, -0) ? JSON.stringify(n) : token.text;
}

/** The tokens of a JSONC text that parses (anything else is not checked here). */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let breaks = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      breaks++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      i++;
    } else if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      tokens.push({ kind: "comment", text: text.slice(i, stop), breaks });
      breaks = 0;
      i = stop;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      tokens.push({ kind: "comment", text: text.slice(i, stop), breaks });
      breaks = 0;
      i = stop;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      tokens.push({ kind: "string", text: text.slice(i, j + 1), breaks });
      breaks = 0;
      i = j + 1;
    } else if ("{}[]:,".includes(c)) {
      tokens.push({ kind: "punct", text: c, breaks });
      breaks = 0;
      i++;
    } else {
      let j = i;
      while (j < text.length && /[^\s{}[\]:,/"]/.test(text[j]!)) j++;
      tokens.push({ kind: "literal", text: text.slice(i, Math.max(j, i + 1)), breaks });
      breaks = 0;
      i = Math.max(j, i + 1);
    }
  }
  return tokens;
}

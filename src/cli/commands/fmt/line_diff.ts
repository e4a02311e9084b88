/**
 * A unified diff of two texts, line by line (`policy fmt --diff`). Lines
 * common to both ends are set aside first; what is left is compared with a
 * longest-common-subsequence table when it is small enough (at most
 * {@link MAX_TABLE_CELLS} cells), and otherwise shown as one replaced block,
 * still a correct diff: time and memory stay bounded whatever the files.
 *
 * @module
 */

/** The largest table compared line by line (lines left × lines right). */
export const MAX_TABLE_CELLS = 4_000_000;

/** One line of an edit script. */
interface Edit {
  op: " " | "-" | "+";
  line: string;
}

/**
 * The unified diff (`--- a/<name>`, `+++ b/<name>`, hunks with three lines
 * of context) that turns `before` into `after`; empty when they are equal.
 */
export function unifiedDiff(before: string, after: string, name: string): string {
  if (before === after) return "";
  const a = splitLines(before);
  const b = splitLines(after);
  const edits = editScript(a, b);
  const hunks: string[] = [];
  const context = 3;
  let i = 0;
  let oldLine = 1;
  let newLine = 1;
  while (i < edits.length) {
    if (edits[i]!.op === " ") {
      i++;
      oldLine++;
      newLine++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is at most 2 * context lines away from the previous one.
    let start = i;
    let back = 0;
    while (start > 0 && back < context && edits[start - 1]!.op === " ") {
      start--;
      back++;
    }
    let end = i;
    let quiet = 0;
    for (let j = i; j < edits.length; j++) {
      if (edits[j]!.op === " ") {
        quiet++;
        if (quiet > 2 * context) break;
      } else {
        quiet = 0;
        end = j;
      }
    }
    const stop = Math.min(edits.length, end + 1 + context);
    const body = edits.slice(start, stop);
    const oldStart = oldLine - back;
    const newStart = newLine - back;
    const oldCount = body.filter((e) => e.op !== "+").length;
    const newCount = body.filter((e) => e.op !== "-").length;
    hunks.push(
      `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n` +
        body.map((e) =>
          `${e.op}${e.line}${e.line.endsWith("\n") ? "" : "\n\\ No newline at end of file\n"}`
        ).join(""),
    );
    for (let j = i; j < stop; j++) {
      if (edits[j]!.op !== "+") oldLine++;
      if (edits[j]!.op !== "-") newLine++;
    }
    i = stop;
  }
  return `--- a/${name}\n+++ b/${name}\n${hunks.join("")}`;
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
}

/** The lines of a text, each with its line break (the last one may have none). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The edit script from `a` to `b`. */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix && suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) suffix++;
  const left = a.slice(prefix, a.length - suffix);
  const right = b.slice(prefix, b.length - suffix);
  const edits: Edit[] = a.slice(0, prefix).map((line) => ({ op: " ", line }));
  edits.push(...middle(left, right));
  edits.push(...a.slice(a.length - suffix).map((line): Edit => ({ op: " ", line })));
  return edits;
}

/** The edit script of the part that differs: a longest common subsequence, or one block. */
function middle(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_TABLE_CELLS) {
    return [
      ...a.map((line): Edit => ({ op: "-", line })),
      ...b.map((line): Edit => ({ op: "+", line })),
    ];
  }
  // lcs[i * (m + 1) + j]: length of the longest common subsequence of a[i..] and b[j..].
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j]
        ? lcs[(i + 1) * width + j + 1]! + 1
        : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      edits.push({ op: " ", line: a[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      edits.push({ op: "-", line: a[i]! });
      i++;
    } else {
      edits.push({ op: "+", line: b[j]! });
      j++;
    }
  }
  return edits;
}

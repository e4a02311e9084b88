/// <reference lib="dom" />
/**
 * The few DOM helpers the panels share. Text always goes in as text
 * (`textContent`), never as markup: a bundle's strings are shown, never run.
 *
 * @module
 */

/** A child of {@link h}: a node, text, or nothing. */
export type Child = Node | string | null | undefined | false;

/** The class and attributes of {@link h}. */
export interface Props {
  class?: string;
  /** Attributes, set as text. */
  attrs?: Record<string, string>;
}

/** Makes an element with properties and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props?.class !== undefined) element.className = props.class;
  for (const [name, value] of Object.entries(props?.attrs ?? {})) element.setAttribute(name, value);
  append(element, children);
  return element;
}

/** Appends children, text as text nodes. */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** A table with a header row of `headings` (column headers) and the rows given. */
export function table(
  headings: readonly string[],
  rows: readonly HTMLTableRowElement[],
  className?: string,
): HTMLTableElement {
  return h(
    "table",
    className === undefined ? null : { class: className },
    h(
      "thead",
      null,
      h("tr", null, ...headings.map((t) => h("th", { attrs: { scope: "col" } }, t))),
    ),
    h("tbody", null, ...rows),
  );
}

/** Replaces an element's children. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The element with `id`, which the page's markup must have. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

/**
 * A button that looks like a link, for "go there" actions inside text.
 * `more`, read by screen readers only, follows the visible text in its
 * accessible name (which must start with what is seen).
 */
export function linkButton(text: string, onClick: () => void, more?: string): HTMLButtonElement {
  const button = h(
    "button",
    { class: "link", attrs: { type: "button" } },
    text,
    more === undefined ? null : h("span", { class: "sr-only" }, ` ${more}`),
  );
  button.addEventListener("click", onClick);
  return button;
}

/** Reads a file the user chose or dropped, refusing one over `maxBytes`. */
export async function readUserFile(file: File, maxBytes: number): Promise<string> {
  if (file.size > maxBytes) {
    throw new Error(`${file.name} is ${file.size} bytes, over the page's limit of ${maxBytes}`);
  }
  return await file.text();
}

/** Offers `text` as a download named `name` (the only way the page writes anything). */
export function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = h("a", { attrs: { href: url, download: name } });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Wires a button to a hidden file input; `onText` gets the chosen file's text (and is awaited). */
export function wireFileInput(
  button: HTMLButtonElement,
  input: HTMLInputElement,
  maxBytes: number,
  onText: (text: string, name: string) => void | Promise<void>,
  onError: (message: string) => void,
): void {
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    input.value = "";
    if (file === undefined) return;
    try {
      await onText(await readUserFile(file, maxBytes), file.name);
    } catch (error) {
      onError((error as Error).message);
    }
  });
}

/// <reference lib="dom" />
/**
 * The views as tabs, keyboard-usable as the WAI-ARIA tabs pattern says:
 * arrow keys, Home and End move between tabs and select them; the panel
 * follows.
 *
 * @module
 */

/** Wires the tablist of the page; returns the function that shows a view by name (`why`, …). */
export function setUpTabs(tablist: HTMLElement): (view: string) => void {
  const tabs = [...tablist.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
  const select = (index: number, focus: boolean) => {
    tabs.forEach((tab, i) => {
      const selected = i === index;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
      const panel = document.getElementById(tab.getAttribute("aria-controls") ?? "");
      if (panel !== null) panel.hidden = !selected;
    });
    if (focus) tabs[index]?.focus();
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(i, false));
    tab.addEventListener("keydown", (event) => {
      const last = tabs.length - 1;
      const next = event.key === "ArrowRight"
        ? (i === last ? 0 : i + 1)
        : event.key === "ArrowLeft"
        ? (i === 0 ? last : i - 1)
        : event.key === "Home"
        ? 0
        : event.key === "End"
        ? last
        : -1;
      if (next < 0) return;
      event.preventDefault();
      select(next, true);
    });
  });
  select(0, false);
  return (view) => {
    const index = tabs.findIndex((tab) => tab.id === `tab-${view}`);
    if (index >= 0) select(index, false);
  };
}

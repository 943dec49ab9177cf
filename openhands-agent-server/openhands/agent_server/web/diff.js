// Diffs as the page shows them: a unified patch (a checkpoint's changes) and the edit a tool
// call would make. Lines are text nodes with a class for their kind; nothing becomes markup.

import { el } from "./dom.js";

function line(kind, text) {
  const span = el("span", `diff-line diff-${kind}`, text);
  return span;
}

function block(lines, label) {
  const pre = el("pre", "diff");
  pre.tabIndex = 0; // long diffs scroll: the keyboard must reach them
  if (label) pre.setAttribute("aria-label", label);
  for (const node of lines) pre.append(node, "\n");
  return pre;
}

function kindOf(text) {
  if (text.startsWith("diff --git") || text.startsWith("+++ ") || text.startsWith("--- ")) return "file";
  if (text.startsWith("@@")) return "hunk";
  if (text.startsWith("+")) return "add";
  if (text.startsWith("-")) return "del";
  if (text.startsWith("\\") || /^(index|new file|deleted file|old mode|new mode|similarity|Binary) /.test(text)) return "meta";
  return "ctx";
}

/** A unified diff (`git diff` output) as coloured lines. */
export function renderPatch(patch, label = "Changes") {
  const lines = (patch || "").replace(/\n$/, "").split("\n").map((text) => line(kindOf(text), text));
  return block(lines, label);
}

/** The lines an edit removes and adds, as a small diff (`- old`, `+ new`). */
export function renderEdit(oldText, newText, label = "The change") {
  const split = (text) => (text ? text.replace(/\n$/, "").split("\n") : []);
  const lines = [
    ...split(oldText).map((text) => line("del", `-${text}`)),
    ...split(newText).map((text) => line("add", `+${text}`)),
  ];
  return block(lines, label);
}

/** "3 files: +12 −4" for a checkpoint diff's file list. */
export function filesSummary(files) {
  const count = files.length;
  let added = 0;
  let removed = 0;
  for (const file of files) {
    added += file.additions || 0;
    removed += file.deletions || 0;
  }
  return `${count} file${count === 1 ? "" : "s"} changed (+${added} −${removed})`;
}

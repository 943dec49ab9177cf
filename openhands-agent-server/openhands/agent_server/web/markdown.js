// A small Markdown renderer for chat messages that builds DOM nodes: no HTML is ever parsed,
// so text from the agent or the user cannot inject markup or scripts.
//
// Blocks: paragraphs (single line breaks kept), fenced code blocks (``` or ~~~), headings
// (shown as bold lines, so messages do not break the page's heading outline), block quotes,
// bullet and numbered lists (nested by indentation), horizontal rules.
// Inline: `code`, **bold**, *emphasis*, [links](https://...) and bare http(s) URLs; a backslash
// escapes punctuation. Only http and https links become links; anything else stays text.

import { el } from "./dom.js";

/** Longer text is shown as plain text: the inline scanner is not meant for megabytes. */
export const MAX_MARKDOWN_CHARS = 50_000;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const MAX_DEPTH = 6;

/** A fragment holding `text` rendered as Markdown. */
export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  const source = String(text ?? "");
  if (source.length > MAX_MARKDOWN_CHARS) {
    fragment.append(el("p", "md-plain", source));
    return fragment;
  }
  fragment.append(...blocks(source.replace(/\r\n?/g, "\n").split("\n"), 0));
  return fragment;
}

/** A fragment holding one line of `text` with inline Markdown only (code, emphasis, links). */
export function renderInline(text) {
  const fragment = document.createDocumentFragment();
  const source = String(text ?? "");
  fragment.append(...(source.length > MAX_MARKDOWN_CHARS ? [source] : inline(source, 0)));
  return fragment;
}

function indentOf(line) {
  return line.length - line.trimStart().length;
}

function isBlank(line) {
  return line.trim() === "";
}

// Whether `line` starts a block other than a paragraph (it then ends a paragraph).
function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
}

function blocks(lines, depth) {
  const nodes = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i += 1;
      continue;
    }
    let match = FENCE.exec(line);
    if (match) {
      const fence = match[1];
      const closing = new RegExp(`^ {0,3}\\${fence[0]}{${fence.length},}\\s*$`);
      const body = [];
      i += 1;
      while (i < lines.length && !closing.test(lines[i])) {
        body.push(lines[i]);
        i += 1;
      }
      i += 1; // the closing fence (or the end of the text)
      const pre = el("pre", "md-code");
      pre.tabIndex = 0; // a wide block scrolls sideways: the keyboard must reach it
      const code = el("code", null, body.join("\n"));
      if (match[2]) code.dataset.lang = match[2];
      pre.append(code);
      nodes.push(pre);
      continue;
    }
    if (RULE.test(line)) {
      nodes.push(el("hr", "md-rule"));
      i += 1;
      continue;
    }
    match = HEADING.exec(line);
    if (match) {
      const heading = el("p", `md-heading md-h${match[1].length}`);
      const strong = el("strong");
      strong.append(...inline(match[2], 0));
      heading.append(strong);
      nodes.push(heading);
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && !isBlank(lines[i]) && QUOTE.test(lines[i])) {
        body.push(QUOTE.exec(lines[i])[1]);
        i += 1;
      }
      const quote = el("blockquote", "md-quote");
      if (depth < MAX_DEPTH) quote.append(...blocks(body, depth + 1));
      else quote.append(paragraph(body));
      nodes.push(quote);
      continue;
    }
    if (ITEM.test(line)) {
      const [list, next] = listAt(lines, i, depth);
      nodes.push(list);
      i = next;
      continue;
    }
    const body = [];
    while (i < lines.length && !isBlank(lines[i]) && (body.length === 0 || !startsBlock(lines[i]))) {
      body.push(lines[i]);
      i += 1;
    }
    nodes.push(paragraph(body));
  }
  return nodes;
}

function paragraph(lines) {
  const p = el("p");
  p.append(...inline(lines.map((line) => line.trim()).join("\n"), 0));
  return p;
}

// The list starting at lines[start]; items indented deeper than its first item nest.
function listAt(lines, start, depth) {
  const first = ITEM.exec(lines[start]);
  const base = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = el(ordered ? "ol" : "ul", "md-list");
  if (ordered && parseInt(first[2], 10) !== 1) list.start = parseInt(first[2], 10);
  let i = start;
  let item = null;
  let text = [];
  const flush = () => {
    if (item && text.length) item.prepend(...inline(text.join("\n"), 0));
    text = [];
  };
  while (i < lines.length && !isBlank(lines[i])) {
    const match = ITEM.exec(lines[i]);
    const indent = indentOf(lines[i]);
    if (match && indent === base && /\d/.test(match[2]) === ordered) {
      flush();
      item = el("li");
      list.append(item);
      text = [match[3]];
      i += 1;
    } else if (match && indent > base && depth < MAX_DEPTH) {
      flush();
      const [nested, next] = listAt(lines, i, depth + 1);
      item.append(nested);
      i = next;
    } else if (!match && indent > base) {
      text.push(lines[i].trim()); // a continuation line of the current item
      i += 1;
    } else {
      break;
    }
  }
  flush();
  return [list, i];
}

// -- inline --------------------------------------------------------------------------------------

const ESCAPABLE = "\\`*_{}[]()#+-.!>~|";
const LINK = /^\[([^\]\n]*)\]\(\s*<?([^\s<>()]+)>?(?:\s+"[^"\n]*")?\s*\)/;
const AUTOLINK = /^https?:\/\/[^\s<>"]+/;
const WORD = /[\p{L}\p{N}]/u;

/** A node for `href` if it is an absolute http(s) URL, else null. */
export function safeLink(href, children) {
  let url;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const a = el("a", "md-link");
  a.href = url.href;
  a.target = "_blank";
  a.rel = "noopener noreferrer";
  a.append(...children);
  return a;
}

// Text nodes with <br> for each line break.
function textNodes(text) {
  const nodes = [];
  text.split("\n").forEach((part, index) => {
    if (index > 0) nodes.push(el("br"));
    if (part) nodes.push(document.createTextNode(part));
  });
  return nodes;
}

// The index of a closing `delim` after `from`, not preceded by a space (a single `*` or `_`
// is not half of a double one), or -1.
function closer(text, delim, from) {
  const single = delim.length === 1;
  const bad = (at) => /\s/.test(text[at - 1]) || (single && (text[at + 1] === delim || text[at - 1] === delim));
  let at = text.indexOf(delim, from);
  while (at !== -1 && bad(at)) at = text.indexOf(delim, at + 1);
  return at;
}

function inline(text, depth) {
  const nodes = [];
  let plain = "";
  const emit = (node) => {
    if (plain) nodes.push(...textNodes(plain));
    plain = "";
    nodes.push(node);
  };
  const missing = new Set(); // delimiters with no closer left: never searched again
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const rest = () => text.slice(i, i + 2048); // what the patterns look at
    if (ch === "\\" && i + 1 < text.length && ESCAPABLE.includes(text[i + 1])) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === "`") {
      let size = 1;
      while (text[i + size] === "`") size += 1;
      const run = "`".repeat(size);
      const end = missing.has(run) ? -1 : text.indexOf(run, i + run.length);
      if (end === -1) {
        missing.add(run);
        plain += run;
        i += run.length;
        continue;
      }
      emit(el("code", "md-inline-code", text.slice(i + run.length, end).replace(/\n/g, " ")));
      i = end + run.length;
      continue;
    }
    if (ch === "[") {
      const match = LINK.exec(rest());
      if (match) {
        const link = safeLink(match[2], depth < MAX_DEPTH ? inline(match[1], depth + 1) : [match[1]]);
        if (link) emit(link);
        else plain += match[1]; // not http(s): the words stay, the target is dropped
        i += match[0].length;
        continue;
      }
    }
    if (ch === "h" && !WORD.test(text[i - 1] || "")) {
      const match = AUTOLINK.exec(rest());
      if (match) {
        const url = match[0].replace(/[.,;:!?'")\]]+$/, "");
        const link = safeLink(url, [document.createTextNode(url)]);
        if (link) {
          emit(link);
          i += url.length;
          continue;
        }
      }
    }
    if ((ch === "*" || ch === "_") && depth < MAX_DEPTH) {
      const strong = text[i + 1] === ch;
      const delim = strong ? ch + ch : ch;
      const start = i + delim.length;
      // `_` only counts at word edges (snake_case stays text); nothing opens before a space.
      const opens = text[start] && !/\s/.test(text[start]) && (ch === "*" || !WORD.test(text[i - 1] || ""));
      const end = opens && !missing.has(delim) ? closer(text, delim, start + 1) : -1;
      if (opens && end === -1) missing.add(delim);
      if (end !== -1 && (ch === "*" || !WORD.test(text[end + delim.length] || ""))) {
        const node = el(strong ? "strong" : "em");
        node.append(...inline(text.slice(start, end), depth + 1));
        emit(node);
        i = end + delim.length;
        continue;
      }
      plain += delim;
      i += delim.length;
      continue;
    }
    plain += ch;
    i += 1;
  }
  if (plain) nodes.push(...textNodes(plain));
  return nodes;
}

// Basic accessibility checks, run in the page by test_layout.py: the serious problems an
// automated checker such as axe-core finds first. Returns a list of problems (empty: none).
//
// Checked: the document's language and title; an accessible name on every visible control,
// button, link and summary; unique ids, and ARIA references to ids that exist; heading levels
// that do not skip; one main landmark; lists holding only list items; no interactive element
// inside another; no positive tabindex; scrollable boxes reachable by keyboard; and a text
// contrast of at least 4.5:1 (3:1 for large text) for every visible, enabled text.
() => {
  const problems = [];
  const describe = (node) =>
    node.id ? `#${node.id}` : `${node.tagName.toLowerCase()}${[...node.classList].map((c) => `.${c}`).join("")}`;
  const textOf = (node) => (node ? node.textContent || "" : "").replace(/\s+/g, " ").trim();
  const visible = (node) => {
    const style = getComputedStyle(node);
    if (style.display === "none" || style.visibility === "hidden") return false;
    const box = node.getBoundingClientRect();
    return box.width > 1 && box.height > 1; // an sr-only element is 1 px: not seen
  };
  const shown = (node) => node.getClientRects().length > 0 && getComputedStyle(node).visibility !== "hidden";

  function accessibleName(node) {
    const ids = node.getAttribute("aria-labelledby");
    if (ids) return ids.split(/\s+/).map((id) => textOf(document.getElementById(id))).join(" ").trim();
    const label = (node.getAttribute("aria-label") || "").trim();
    if (label) return label;
    if (node.labels && node.labels.length) return [...node.labels].map(textOf).join(" ").trim();
    if (["BUTTON", "A", "SUMMARY"].includes(node.tagName)) return textOf(node);
    return (node.getAttribute("title") || "").trim();
  }

  if (!document.documentElement.lang) problems.push("html has no lang");
  if (!document.title.trim()) problems.push("the document has no title");

  const controls = "input:not([type=hidden]), textarea, select, button, a[href], summary";
  for (const node of document.querySelectorAll(controls)) {
    if (shown(node) && !accessibleName(node)) problems.push(`no accessible name: ${describe(node)}`);
  }

  const seen = new Map();
  for (const node of document.querySelectorAll("[id]")) {
    if (seen.has(node.id)) problems.push(`duplicate id: ${node.id}`);
    seen.set(node.id, node);
  }
  for (const attr of ["aria-labelledby", "aria-describedby", "aria-controls", "for"]) {
    for (const node of document.querySelectorAll(`[${attr}]`)) {
      for (const id of node.getAttribute(attr).split(/\s+/).filter(Boolean)) {
        if (!document.getElementById(id)) problems.push(`${describe(node)} ${attr} names a missing id: ${id}`);
      }
    }
  }

  let level = 0;
  for (const heading of document.querySelectorAll("h1, h2, h3, h4, h5, h6")) {
    if (!shown(heading)) continue;
    const next = Number(heading.tagName[1]);
    if (next > level + 1) problems.push(`heading level skips from h${level} to h${next}: ${describe(heading)}`);
    level = next;
  }

  if (document.querySelectorAll("main").length !== 1) problems.push("the page needs exactly one <main>");

  for (const list of document.querySelectorAll("ul, ol")) {
    for (const child of list.children) {
      if (child.tagName !== "LI") problems.push(`${describe(list)} holds a ${child.tagName.toLowerCase()}`);
    }
  }

  const interactive = "a[href], button, input, select, textarea";
  for (const node of document.querySelectorAll(interactive)) {
    if (node.querySelector(interactive)) problems.push(`interactive element inside another: ${describe(node)}`);
  }

  for (const node of document.querySelectorAll("[tabindex]")) {
    if (node.tabIndex > 0) problems.push(`positive tabindex: ${describe(node)}`);
  }

  const focusable = "a[href], button:not(:disabled), input:not(:disabled), textarea:not(:disabled), summary, [tabindex]";
  for (const node of document.querySelectorAll("body *")) {
    if (!shown(node)) continue;
    const style = getComputedStyle(node);
    const scrolls = (["auto", "scroll"].includes(style.overflowY) && node.scrollHeight > node.clientHeight + 1)
      || (["auto", "scroll"].includes(style.overflowX) && node.scrollWidth > node.clientWidth + 1);
    if (scrolls && node.tabIndex < 0 && !node.querySelector(focusable)) {
      problems.push(`scrollable but not reachable by keyboard: ${describe(node)}`);
    }
  }

  // -- contrast -------------------------------------------------------------------------------
  const parse = (value) => {
    const match = /rgba?\(([^)]+)\)/.exec(value);
    if (!match) return null;
    const [r, g, b, a = 1] = match[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const luminance = ({ r, g, b }) => {
    const channel = (v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const background = (node) => {
    const chain = [];
    for (let at = node; at; at = at.parentElement) chain.push(at);
    let color = { r: 255, g: 255, b: 255, a: 1 };
    for (const at of chain.reverse()) {
      const layer = parse(getComputedStyle(at).backgroundColor);
      if (layer && layer.a > 0) color = over(layer, color);
    }
    return color;
  };
  for (const node of document.querySelectorAll("body *")) {
    const ownText = [...node.childNodes].some((child) => child.nodeType === 3 && child.textContent.trim());
    if (!ownText || !visible(node) || node.closest(":disabled, [aria-disabled=true]")) continue;
    const style = getComputedStyle(node);
    const back = background(node);
    const fore = over(parse(style.color), back);
    const [light, dark] = [luminance(fore), luminance(back)].sort((x, y) => y - x);
    const ratio = (light + 0.05) / (dark + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      problems.push(`contrast ${ratio.toFixed(2)}:1 for "${textOf(node).slice(0, 40)}" (${describe(node)})`);
    }
  }
  return problems;
}

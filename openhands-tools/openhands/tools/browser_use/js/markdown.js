// The page's readable content as Markdown (browser_get_content).
// A function declaration called with `links`: whether links keep their targets.
function (links) {
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "CANVAS", "IFRAME",
                        "HEAD", "META", "LINK", "OBJECT", "EMBED", "NAV", "FOOTER", "ASIDE"]);
  const BLOCK = new Set(["P", "DIV", "SECTION", "ARTICLE", "MAIN", "HEADER", "FORM", "FIELDSET",
                         "FIGURE", "FIGCAPTION", "ADDRESS", "DL", "DT", "DD", "BLOCKQUOTE"]);
  const hidden = (el) => {
    const style = getComputedStyle(el);
    return style.display === "none" || style.visibility === "hidden";
  };
  const inline = (text) => text.replace(/\s+/g, " ");
  const out = [];
  const emit = (text) => out.push(text);
  const walk = (node, ctx) => {
    if (node.nodeType === Node.TEXT_NODE) {
      emit(ctx.pre ? node.textContent : inline(node.textContent));
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node;
    const tag = el.tagName.toUpperCase();
    if (SKIP.has(tag) || hidden(el)) return;
    const children = (extra) => {
      for (const child of el.childNodes) walk(child, { ...ctx, ...extra });
      if (el.shadowRoot) for (const child of el.shadowRoot.childNodes) walk(child, { ...ctx, ...extra });
    };
    const heading = /^H([1-6])$/.exec(tag);
    if (heading) {
      emit("\n\n" + "#".repeat(Number(heading[1])) + " ");
      children({});
      emit("\n\n");
    } else if (tag === "BR") {
      emit("\n");
    } else if (tag === "HR") {
      emit("\n\n---\n\n");
    } else if (tag === "PRE") {
      emit("\n\n```\n");
      children({ pre: true });
      emit("\n```\n\n");
    } else if (tag === "CODE" && !ctx.pre) {
      emit("`");
      children({});
      emit("`");
    } else if (tag === "STRONG" || tag === "B") {
      emit("**");
      children({});
      emit("**");
    } else if (tag === "EM" || tag === "I") {
      emit("_");
      children({});
      emit("_");
    } else if (tag === "A") {
      const href = el.getAttribute("href");
      if (links && href && !href.startsWith("javascript:")) {
        emit("[");
        children({});
        emit(`](${el.href})`);
      } else {
        children({});
      }
    } else if (tag === "IMG") {
      const alt = el.getAttribute("alt");
      if (alt) emit(`![${inline(alt)}]` + (links ? `(${el.src})` : ""));
    } else if (tag === "UL" || tag === "OL") {
      emit("\n");
      let number = 1;
      for (const child of el.children) {
        if (child.tagName !== "LI" || hidden(child)) continue;
        emit("\n" + "  ".repeat(ctx.depth || 0) + (tag === "OL" ? `${number++}. ` : "- "));
        for (const part of child.childNodes) walk(part, { ...ctx, depth: (ctx.depth || 0) + 1 });
      }
      emit("\n\n");
    } else if (tag === "TR") {
      emit("\n| ");
      for (const cell of el.children) {
        walk(cell, ctx);
        emit(" | ");
      }
    } else if (tag === "TABLE") {
      emit("\n\n");
      children({});
      emit("\n\n");
    } else if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      const value = tag === "SELECT" ? (el.selectedOptions[0] || {}).text : el.value;
      const label = el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.name || "";
      if (el.type !== "hidden") emit(` [${tag.toLowerCase()}${label ? " " + label : ""}: ${value || ""}] `);
    } else if (tag === "LI" || BLOCK.has(tag)) {
      emit("\n\n");
      children({});
      emit("\n\n");
    } else {
      children({});
    }
  };
  const root = document.querySelector("main, [role=main], article") || document.body;
  if (!root) return "";
  if (document.title) emit("# " + document.title + "\n\n");
  walk(root, {});
  return out
    .join("")
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/g, "").replace(/^[ \t]+(?=[^-\d\s])/g, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

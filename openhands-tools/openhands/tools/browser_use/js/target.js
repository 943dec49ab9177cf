// Bring element number `index` (from elements.js) into view and say where to click it.
// A function declaration: called through Runtime.callFunctionOn with the index.
function (index) {
  const el = (window[Symbol.for("openhands.browser.elements")] || [])[index];
  if (!el) return { error: "unknown" };
  if (!el.isConnected) return { error: "stale" };
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const box = el.getBoundingClientRect();
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const hit = document.elementFromPoint(x, y);
  let reachable = !!hit && (hit === el || el.contains(hit) || hit.contains(el));
  if (!reachable && hit && el.getRootNode() !== document) reachable = hit.contains(el.getRootNode().host);
  const link = el.closest("a[href]");
  return {
    x, y, reachable,
    tag: el.tagName.toLowerCase(),
    href: link ? link.href : null,
    disabled: !!el.disabled,
    editable: el.isContentEditable || ["input", "textarea"].includes(el.tagName.toLowerCase()),
    select: el.tagName.toLowerCase() === "select",
  };
}

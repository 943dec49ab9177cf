// Focus element number `index` and select its contents, so typed text replaces them.
function (index) {
  const el = (window[Symbol.for("openhands.browser.elements")] || [])[index];
  if (!el || !el.isConnected) return { error: el ? "stale" : "unknown" };
  el.scrollIntoView({ block: "center", behavior: "instant" });
  el.focus();
  const tag = el.tagName.toLowerCase();
  if (tag === "input" || tag === "textarea") {
    try { el.select(); } catch (e) { el.value = ""; }
  } else if (el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  } else {
    return { error: "not_editable", tag };
  }
  return { tag, focused: document.activeElement === el || el.contains(document.activeElement) };
}

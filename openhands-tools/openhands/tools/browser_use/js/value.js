// The current value (or text) of element number `index`, after typing into it.
function (index) {
  const el = (window[Symbol.for("openhands.browser.elements")] || [])[index];
  if (!el || !el.isConnected) return null;
  return "value" in el && typeof el.value === "string" ? el.value : el.innerText;
}

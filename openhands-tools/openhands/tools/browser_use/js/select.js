// Choose the option of <select> number `index` whose text or value is `wanted`.
function (index, wanted) {
  const el = (window[Symbol.for("openhands.browser.elements")] || [])[index];
  if (!el || !el.isConnected) return { error: el ? "stale" : "unknown" };
  const options = Array.from(el.options);
  const option = options.find((o) => o.text.trim() === wanted || o.value === wanted);
  if (!option) return { error: "no_option", options: options.map((o) => o.text.trim()) };
  el.value = option.value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { value: option.text.trim() };
}

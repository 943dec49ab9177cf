// The page's interactive elements, numbered for the agent (browser_get_state).
// Evaluated as an expression in the page; the elements are kept on `window` under a
// registered symbol (no attribute is written into the page's DOM) for click and type.
(() => {
  const KEY = Symbol.for("openhands.browser.elements");
  const INTERACTIVE = [
    "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary",
    "details", "label[for]", "[contenteditable='']", "[contenteditable='true']", "[onclick]",
    "[tabindex]:not([tabindex='-1'])",
    ...["button", "link", "checkbox", "radio", "tab", "menuitem", "option", "switch",
        "textbox", "combobox", "searchbox", "slider", "spinbutton"].map((r) => `[role=${r}]`),
  ].join(",");
  const ATTRIBUTES = ["type", "name", "placeholder", "aria-label", "title", "href", "role",
                      "alt", "value", "aria-expanded", "aria-checked", "aria-selected"];
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width <= 0 || box.height <= 0) return false;
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && style.display !== "none" && style.opacity !== "0";
  };
  const found = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll(INTERACTIVE)) if (shown(el)) found.push(el);
    for (const host of root.querySelectorAll("*")) if (host.shadowRoot) walk(host.shadowRoot);
  };
  walk(document);
  const squeeze = (text, limit) => {
    const flat = (text || "").replace(/\s+/g, " ").trim();
    return flat.length > limit ? flat.slice(0, limit - 1) + "…" : flat;
  };
  const items = found.map((el, index) => {
    const attributes = {};
    for (const name of ATTRIBUTES) {
      let value = el.getAttribute(name);
      if (name === "value" && "value" in el && typeof el.value === "string") value = el.value;
      if (value !== null && value !== "") attributes[name] = squeeze(value, 80);
    }
    if (el.type === "checkbox" || el.type === "radio") attributes.checked = String(el.checked);
    if (el.disabled) attributes.disabled = "true";
    const box = el.getBoundingClientRect();
    return {
      index,
      tag: el.tagName.toLowerCase(),
      attributes,
      text: squeeze(el.innerText || "", 100),
      in_viewport: box.bottom > 0 && box.top < innerHeight && box.right > 0 && box.left < innerWidth,
    };
  });
  window[KEY] = found;
  const page = document.scrollingElement || document.documentElement;
  return {
    url: location.href,
    title: document.title,
    items,
    scroll_y: Math.round(scrollY),
    page_height: Math.round(page ? page.scrollHeight : 0),
    viewport_height: innerHeight,
  };
})()

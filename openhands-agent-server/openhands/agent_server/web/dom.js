// Small DOM helpers shared by the page's modules.

export const $ = (id) => document.getElementById(id);

/** A new element with an optional class and text (always set as text, never as HTML). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** Text only screen readers read (a mark's meaning, a table's hidden label). */
export function srOnly(text) {
  return el("span", "sr-only", text);
}

/**
 * Enable `button` (reason empty) or disable it saying why: the reason is its tooltip and its
 * accessible description, kept in a hidden element `<id>-why` that aria-describedby names.
 */
export function setDisabled(button, reason) {
  const why = reason || "";
  button.disabled = Boolean(why);
  button.title = why;
  const whyId = `${button.id}-why`;
  let note = document.getElementById(whyId);
  if (!note) {
    note = el("span", "sr-only");
    note.id = whyId;
    button.after(note);
  }
  note.textContent = why;
  if (why) button.setAttribute("aria-describedby", whyId);
  else button.removeAttribute("aria-describedby");
}

/** Rebuild `node`'s children with `build()` unless `key` is what it shows already (keeps focus). */
export function replaceIfChanged(node, key, build) {
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  node.replaceChildren(...build());
}

/** Show one line of outcome where it was asked (`ok`: a success, else a problem to fix). */
export function showResult(node, text, ok) {
  node.textContent = text;
  node.classList.toggle("result-ok", Boolean(ok) && Boolean(text));
  node.classList.toggle("result-bad", !ok && Boolean(text));
}

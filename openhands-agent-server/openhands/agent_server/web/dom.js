// Small DOM helpers shared by the page's modules.

export const $ = (id) => document.getElementById(id);

/** A new element with an optional class and text (always set as text, never as HTML). */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

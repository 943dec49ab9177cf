// Notices at the top of the page. An error stays until its Dismiss button is pressed (the same
// error again is not stacked twice); a confirmation ("Goal started.") fades after a few seconds.

import { $, el } from "./dom.js";

const INFO_SECONDS = 4;
const MAX_NOTICES = 5;
let counter = 0;

/** Show `message`: kind "error" (stays) or "info" (fades). */
export function notify(message, kind = "error") {
  const box = $("notices");
  for (const old of box.querySelectorAll(".notice")) {
    if (old.dataset.message === message) old.remove(); // shown again below, as the newest
  }
  const notice = el("div", `notice notice-${kind}`);
  notice.dataset.message = message;
  notice.setAttribute("role", kind === "error" ? "alert" : "status");
  const text = el("span", "notice-text", message);
  counter += 1;
  text.id = `notice-${counter}`;
  notice.append(text);
  const dismiss = el("button", "notice-dismiss secondary", "Dismiss");
  dismiss.type = "button";
  dismiss.setAttribute("aria-describedby", text.id);
  dismiss.addEventListener("click", () => notice.remove());
  notice.append(dismiss);
  box.append(notice);
  while (box.children.length > MAX_NOTICES) box.firstElementChild.remove();
  if (kind !== "error") setTimeout(() => notice.remove(), INFO_SECONDS * 1000);
}

/** Remove the notices whose text contains `text` (a problem that went away). */
export function clearNotices(text) {
  for (const notice of $("notices").querySelectorAll(".notice")) {
    if (notice.dataset.message.includes(text)) notice.remove();
  }
}

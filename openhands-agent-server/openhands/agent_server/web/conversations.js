// The conversation list: a link per conversation (#/conversations/<id>), its status, its goal
// and when it last changed; delete with a confirmation. It refreshes itself every few seconds
// while the page is visible (one request for up to 100 conversations: bounded cost).

import { api } from "./api.js";
import { $, el } from "./dom.js";
import { fullTime, relativeTime } from "./format.js";
import { notify } from "./notices.js";
import { statusOf } from "./status.js";

export const POLL_SECONDS = 5;
const PAGE_SIZE = 100;

const list = {
  infos: new Map(), // id -> ConversationInfo (or the part the list uses)
  currentId: null,
  nextPageId: null, // the next page to load with "Show older conversations"
  loadedMore: false, // once older pages are shown, refreshes leave the paging alone
  refused: false, // the server wants a session key: stop polling until one is saved
  onDeleted: () => {},
  deleting: null,
};

export function shortId(id) {
  return String(id).replace(/-/g, "").slice(0, 8);
}

export function titleOf(info) {
  return (info && info.title) || `Conversation ${shortId(info.id)}`;
}

/** The page address of a conversation. */
export function conversationHash(id) {
  return `#/conversations/${id}`;
}

function row(id) {
  return $("conversation-list").querySelector(`li[data-id="${CSS.escape(String(id))}"]`);
}

function roundText(goal) {
  if (!goal) return "";
  const round = Math.min(goal.iteration + (goal.active ? 1 : 0), goal.max_iterations);
  return `round ${round}/${goal.max_iterations}`;
}

function newRow(id) {
  const item = el("li", "conv-row");
  item.dataset.id = id;
  const link = el("a", "conversation-item");
  link.href = conversationHash(id);
  link.dataset.id = id;
  const meta = el("span", "conversation-meta");
  const time = el("time", "muted small conversation-time");
  meta.append(el("span", "badge conversation-status"), el("span", "muted small goal-badge"), time);
  link.append(el("span", "conversation-title"), meta);
  const remove = el("button", "secondary small-button delete-conversation", "Delete");
  remove.type = "button";
  remove.addEventListener("click", () => askDelete(id));
  item.append(link, remove);
  return item;
}

function fillRow(item, info) {
  const title = titleOf(info);
  const link = item.querySelector(".conversation-item");
  link.querySelector(".conversation-title").textContent = title;
  const shown = statusOf(info.execution_status, info.goal || null);
  const status = link.querySelector(".conversation-status");
  status.textContent = shown.text;
  status.className = `badge conversation-status tone-${shown.tone}`;
  status.dataset.status = info.execution_status;
  const goal = link.querySelector(".goal-badge");
  goal.textContent = roundText(info.goal);
  goal.hidden = !info.goal;
  goal.className = "muted small goal-badge";
  const time = link.querySelector(".conversation-time");
  time.dateTime = info.updated_at || "";
  time.textContent = relativeTime(info.updated_at);
  time.title = `Last change: ${fullTime(info.updated_at)}`;
  if (info.id === list.currentId) link.setAttribute("aria-current", "page");
  else link.removeAttribute("aria-current");
  item.querySelector(".delete-conversation").setAttribute("aria-label", `Delete ${title}`);
}

// Show `infos` (one page, newest first) in order, keeping rows (and the focus in them) that
// stay; with `replace`, rows of conversations no longer listed go.
function show(infos, replace) {
  const box = $("conversation-list");
  const keep = new Set(infos.map((info) => info.id));
  if (replace) {
    for (const item of [...box.children]) {
      if (!keep.has(item.dataset.id) && !item.dataset.extra) {
        item.remove();
        list.infos.delete(item.dataset.id);
      }
    }
  }
  let position = replace ? 0 : box.children.length;
  for (const info of infos) {
    list.infos.set(info.id, info);
    const item = row(info.id) || newRow(info.id);
    if (!replace) item.dataset.extra = "true";
    fillRow(item, info);
    if (box.children[position] !== item) box.insertBefore(item, box.children[position] || null);
    position += 1;
  }
  $("conversation-empty").hidden = box.children.length > 0;
}

/** Read the first page of conversations and show it. */
export async function loadConversations() {
  let page;
  try {
    page = await api("GET", `/api/conversations/search?limit=${PAGE_SIZE}`);
  } catch (err) {
    list.refused = err.status === 401;
    notify(err.message);
    return;
  }
  list.refused = false;
  show((page && page.items) || [], true);
  if (!list.loadedMore) {
    list.nextPageId = page && page.next_page_id;
    $("more-conversations").hidden = !list.nextPageId;
  }
}

async function loadMore() {
  if (!list.nextPageId) return;
  try {
    const page = await api("GET", `/api/conversations/search?limit=${PAGE_SIZE}&page_id=${encodeURIComponent(list.nextPageId)}`);
    show(page.items || [], false);
    list.loadedMore = true;
    list.nextPageId = page.next_page_id;
    $("more-conversations").hidden = !list.nextPageId;
  } catch (err) {
    notify(err.message);
  }
}

/** Mark conversation `id` (or none) as the open one. */
export function markCurrent(id) {
  list.currentId = id;
  for (const link of $("conversation-list").querySelectorAll(".conversation-item")) {
    if (link.dataset.id === id) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** Update the row of conversation `id` with what the open conversation just learned. */
export function updateListItem(id, changes) {
  const info = list.infos.get(id);
  const item = row(id);
  if (!info || !item) return;
  Object.assign(info, changes);
  fillRow(item, info);
}

function askDelete(id) {
  const info = list.infos.get(id) || { id };
  list.deleting = id;
  $("delete-text").textContent =
    `“${titleOf(info)}” and all its events are removed from the server, with the working directory the server made for it. This cannot be undone.`;
  const dialog = $("delete-dialog");
  dialog.returnValue = ""; // Escape closes without setting it: a stale "delete" must not count
  dialog.showModal();
}

async function deleteConversation(id) {
  try {
    await api("DELETE", `/api/conversations/${id}`);
  } catch (err) {
    if (err.status !== 404) {
      notify(`Could not delete the conversation: ${err.message}`);
      return;
    }
  }
  const item = row(id);
  if (item) item.remove();
  list.infos.delete(id);
  $("conversation-empty").hidden = $("conversation-list").children.length > 0;
  notify("Conversation deleted.", "info");
  list.onDeleted(id);
}

function poll() {
  if (document.visibilityState === "visible" && !list.refused) loadConversations();
}

/** Wire the list: `onDeleted(id)` runs after a delete. Starts the periodic refresh. */
export function initConversations({ onDeleted }) {
  list.onDeleted = onDeleted;
  $("refresh").addEventListener("click", loadConversations);
  $("more-conversations").addEventListener("click", loadMore);
  const dialog = $("delete-dialog");
  dialog.addEventListener("close", () => {
    const id = list.deleting;
    list.deleting = null;
    if (dialog.returnValue === "delete" && id) deleteConversation(id);
    const item = id && row(id);
    if (item) item.querySelector(".delete-conversation").focus(); // back where the user was
  });
  setInterval(poll, POLL_SECONDS * 1000);
  document.addEventListener("visibilitychange", poll);
}

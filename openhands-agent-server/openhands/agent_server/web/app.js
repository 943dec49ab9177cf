// The agent server's web page: plain JS, no build step, nothing fetched from elsewhere.
// Every piece of server data is put on the page with textContent (never innerHTML).

import { KEY_QUERY, api, saveSessionKey, sessionKey } from "./api.js";
import { $, el } from "./dom.js";
import { renderGoal, setAgentRunning } from "./goal.js";
import { renderEvent } from "./render.js";

const app = {
  conversationId: null,
  socket: null,
  lastEventId: null,
  seen: new Set(),
  reconnectDelay: 250,
  hasTitle: false,
  // How many events had been shown when the last status / goal event came (see refreshInfo).
  statusAt: 0,
  goalAt: 0,
  pendingInfo: null,
};

// -- helpers -----------------------------------------------------------------------------------

function notify(message, kind = "error") {
  const box = $("notice");
  box.textContent = message;
  box.className = `notice notice-${kind}`;
  box.hidden = false;
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => { box.hidden = true; }, kind === "error" ? 10000 : 3000);
}

function shortId(id) {
  return String(id).replace(/-/g, "").slice(0, 8);
}

// -- conversations -----------------------------------------------------------------------------

async function loadConversations() {
  let page;
  try {
    page = await api("GET", "/api/conversations/search?limit=100");
  } catch (err) {
    notify(err.message);
    return;
  }
  const list = $("conversation-list");
  list.replaceChildren();
  const items = (page && page.items) || [];
  $("conversation-empty").hidden = items.length > 0;
  items.sort((a, b) => String(b.updated_at).localeCompare(String(a.updated_at)));
  for (const info of items) {
    const item = el("li");
    const button = el("button", "conversation-item");
    button.type = "button";
    button.dataset.id = info.id;
    if (info.id === app.conversationId) button.setAttribute("aria-current", "true");
    button.append(el("span", "conversation-title", info.title || `Conversation ${shortId(info.id)}`));
    button.append(el("span", `badge status-${info.execution_status}`, info.execution_status));
    button.addEventListener("click", () => openConversation(info.id));
    item.append(button);
    list.append(item);
  }
}

async function createConversation(event) {
  event.preventDefault();
  const form = event.target;
  const llm = { model: form.model.value.trim(), usage_id: "agent" };
  if (form.base_url.value.trim()) llm.base_url = form.base_url.value.trim();
  if (form.api_key.value) llm.api_key = form.api_key.value;
  const tools = [...form.querySelectorAll("input[name=tools]:checked")].map((b) => ({ name: b.value }));
  const request = { agent: { kind: "Agent", llm, tools } };
  if (form.working_dir.value.trim()) {
    request.workspace = { kind: "LocalWorkspace", working_dir: form.working_dir.value.trim() };
  }
  const button = $("create");
  button.disabled = true;
  try {
    const info = await api("POST", "/api/conversations", request);
    notify("Conversation created.", "info");
    await loadConversations();
    await openConversation(info.id);
  } catch (err) {
    notify(`Could not create the conversation: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

async function openConversation(id) {
  closeSocket();
  app.conversationId = id;
  app.lastEventId = null;
  app.seen = new Set();
  app.reconnectDelay = 250;
  app.statusAt = 0;
  app.goalAt = 0;
  app.pendingInfo = null;
  $("events").replaceChildren();
  $("placeholder").hidden = true;
  $("conversation").hidden = false;
  $("conv-id").textContent = id;
  for (const button of document.querySelectorAll(".conversation-item")) {
    button.toggleAttribute("aria-current", button.dataset.id === id);
  }
  renderGoal(null);
  try {
    const info = await api("GET", `/api/conversations/${id}`);
    app.hasTitle = Boolean(info.title);
    $("conv-title").textContent = info.title || `Conversation ${shortId(id)}`;
    setExecStatus(info.execution_status);
    if (info.goal) renderGoal(info.goal);
  } catch (err) {
    notify(err.message);
    return;
  }
  openSocket();
}

// -- the event stream --------------------------------------------------------------------------

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const params = new URLSearchParams();
  if (app.lastEventId) params.set("after", app.lastEventId);
  else params.set("resend_all", "true");
  const key = sessionKey();
  if (key) params.set(KEY_QUERY, key);
  return `${scheme}//${location.host}/sockets/events/${app.conversationId}?${params}`;
}

function openSocket(reconnecting = false) {
  const id = app.conversationId;
  const socket = new WebSocket(socketUrl());
  app.socket = socket;
  socket.addEventListener("open", () => {
    app.reconnectDelay = 250;
    setSocketStatus("live");
    if (reconnecting) refreshInfo(id);
  });
  socket.addEventListener("message", (message) => {
    let event;
    try { event = JSON.parse(message.data); } catch { return; }
    if (!event || !event.id || app.seen.has(event.id)) return;
    app.seen.add(event.id);
    app.lastEventId = event.id;
    showEvent(event);
    applyPendingInfo();
  });
  socket.addEventListener("close", (close) => {
    if (app.socket !== socket || app.conversationId !== id) return; // replaced on purpose
    app.socket = null;
    setSocketStatus("offline");
    if (close.code === 1008 || close.code === 4401 || close.code === 4403) {
      notify("The event stream was refused: check the session API key.");
      return;
    }
    // Reconnect with `after=<last event id>` so nothing is missed or shown twice.
    setTimeout(() => reconnect(id), app.reconnectDelay);
    app.reconnectDelay = Math.min(app.reconnectDelay * 2, 5000);
  });
}

// A restarted server reloads a conversation without publishing what it lost (a run killed
// mid-step comes back `idle`, no event says so), so after a reconnect the status and goal are
// re-read, and applied once the replayed events have caught up with that read.
async function refreshInfo(id) {
  let info;
  let count;
  try {
    count = await api("GET", `/api/conversations/${id}/events/count`); // before the info: see apply
    info = await api("GET", `/api/conversations/${id}`);
  } catch {
    return; // the socket status already says the server is unreachable
  }
  if (app.conversationId !== id) return;
  app.pendingInfo = { info, count };
  applyPendingInfo();
}

function applyPendingInfo() {
  const pending = app.pendingInfo;
  if (!pending || app.seen.size < pending.count) return;
  app.pendingInfo = null;
  // The info is newer than the first `count` events; an event after those is kept instead.
  if (app.statusAt <= pending.count) setExecStatus(pending.info.execution_status);
  if (app.goalAt <= pending.count) renderGoal(pending.info.goal || null);
}

// A refused socket gives the browser no HTTP status, so ask over REST whether the
// conversation still exists before retrying (a deleted one would be retried forever).
async function reconnect(id) {
  if (app.conversationId !== id || app.socket) return;
  try {
    await api("GET", `/api/conversations/${id}`);
  } catch (err) {
    if (err.status === 404) {
      notify("This conversation no longer exists on the server (it was deleted).");
      loadConversations();
      return;
    }
  }
  if (app.conversationId === id && !app.socket) openSocket(true);
}

function closeSocket() {
  const socket = app.socket;
  app.socket = null;
  if (socket) socket.close();
  setSocketStatus("offline");
}

function setSocketStatus(text) {
  const badge = $("socket-status");
  badge.textContent = text;
  badge.classList.toggle("live", text === "live");
}

function setExecStatus(status) {
  const badge = $("exec-status");
  badge.textContent = status;
  badge.className = `badge status-${status}`;
  setAgentRunning(status === "running");
  const item = listItem(app.conversationId);
  if (item) {
    const listBadge = item.querySelector(".badge");
    listBadge.textContent = status;
    listBadge.className = `badge status-${status}`;
  }
}

function listItem(id) {
  return document.querySelector(`.conversation-item[data-id="${CSS.escape(String(id))}"]`);
}

function setTitle(title) {
  $("conv-title").textContent = title;
  const item = listItem(app.conversationId);
  if (item) item.querySelector(".conversation-title").textContent = title;
}

function showEvent(event) {
  const node = renderEvent(event, {
    status(value) {
      app.statusAt = app.seen.size;
      setExecStatus(value);
    },
    goal(value) {
      app.goalAt = app.seen.size;
      renderGoal(value);
    },
    userText(text) {
      if (app.hasTitle) return;
      app.hasTitle = true; // the server titles a conversation after its first message
      setTitle(text.split("\n")[0].slice(0, 80));
    },
  });
  const list = $("events");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(node);
  if (stick) list.scrollTop = list.scrollHeight;
}

// -- goals -------------------------------------------------------------------------------------

async function startGoal(event) {
  event.preventDefault();
  const form = event.target;
  const body = {
    objective: form.objective.value.trim(),
    max_iterations: parseInt(form.max_iterations.value, 10) || 10,
  };
  if (form.verify.value.trim()) body.verify = form.verify.value.trim();
  await goalCall("POST", "", body, "Goal started.");
}

async function goalCall(method, suffix, body, done) {
  if (!app.conversationId) return;
  try {
    await api(method, `/api/conversations/${app.conversationId}/goal${suffix}`, body);
    notify(done, "info");
  } catch (err) {
    notify(err.message);
  }
}

// -- messages ----------------------------------------------------------------------------------

async function sendMessage(event) {
  event.preventDefault();
  const box = $("message");
  const text = box.value.trim();
  if (!text || !app.conversationId) return;
  const body = { role: "user", content: [{ type: "text", text }], run: $("message-run").checked };
  $("send").disabled = true;
  try {
    await api("POST", `/api/conversations/${app.conversationId}/events`, body);
    box.value = "";
  } catch (err) {
    notify(err.message);
  } finally {
    $("send").disabled = false;
  }
}

async function pause() {
  if (!app.conversationId) return;
  try {
    await api("POST", `/api/conversations/${app.conversationId}/pause`);
  } catch (err) {
    notify(err.message);
  }
}

// Offer the server's LLM_MODEL / LLM_BASE_URL; fields the user already typed are left alone.
async function loadLlmDefaults() {
  let info;
  try {
    info = await api("GET", "/server_info");
  } catch {
    return; // a missing session key is reported by loadConversations
  }
  const defaults = info.llm_defaults || {};
  const form = $("create-form");
  if (defaults.model && !form.model.value) form.model.value = defaults.model;
  if (defaults.base_url && !form.base_url.value) form.base_url.value = defaults.base_url;
  form.api_key.placeholder = defaults.api_key_set ? "the server's LLM_API_KEY" : "";
}

// -- wiring ------------------------------------------------------------------------------------

function saveKey(event) {
  event.preventDefault();
  const value = $("session-key").value.trim();
  saveSessionKey(value);
  notify(value ? "Session key saved in this browser." : "Session key cleared.", "info");
  loadConversations();
  loadLlmDefaults();
  if (app.conversationId) openConversation(app.conversationId);
}

function init() {
  $("session-key").value = sessionKey();
  $("key-form").addEventListener("submit", saveKey);
  $("refresh").addEventListener("click", loadConversations);
  $("create-form").addEventListener("submit", createConversation);
  $("goal-form").addEventListener("submit", startGoal);
  $("goal-stop").addEventListener("click", () => goalCall("POST", "/stop", undefined, "Goal stopped."));
  $("goal-resume").addEventListener("click", () => goalCall("POST", "/resume", undefined, "Goal resumed."));
  $("message-form").addEventListener("submit", sendMessage);
  $("message").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("message-form").requestSubmit();
  });
  $("pause").addEventListener("click", pause);
  loadConversations();
  loadLlmDefaults();
}

init(); // module scripts run after the document is parsed

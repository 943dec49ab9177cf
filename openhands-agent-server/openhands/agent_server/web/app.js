// The agent server's web page: plain JS, no build step, nothing fetched from elsewhere.
// Every piece of server data is put on the page with textContent (never innerHTML).
"use strict";

const KEY_STORAGE = "openhands.sessionApiKey";
const KEY_HEADER = "X-Session-API-Key";
const KEY_QUERY = "session_api_key"; // browsers cannot set headers on a WebSocket

const $ = (id) => document.getElementById(id);

const app = {
  conversationId: null,
  socket: null,
  lastEventId: null,
  seen: new Set(),
  reconnectDelay: 250,
  goal: null,
  hasTitle: false,
};

// -- helpers -----------------------------------------------------------------------------------

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function sessionKey() {
  return localStorage.getItem(KEY_STORAGE) || "";
}

function notify(message, kind = "error") {
  const box = $("notice");
  box.textContent = message;
  box.className = `notice notice-${kind}`;
  box.hidden = false;
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => { box.hidden = true; }, kind === "error" ? 10000 : 3000);
}

function errorText(status, body) {
  if (body && typeof body.message === "string") return body.message;
  if (body && typeof body.detail === "string") return body.detail;
  if (body && Array.isArray(body.detail)) {
    return body.detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
  }
  return `HTTP ${status}`;
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const key = sessionKey();
  if (key) headers[KEY_HEADER] = key;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new Error(`Cannot reach the agent server (${err.message}). Is it running?`);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!response.ok) {
    if (response.status === 401) {
      throw new Error("The server needs a session API key: enter it at the top and press Save key.");
    }
    throw new Error(errorText(response.status, data));
  }
  return data;
}

function textOf(content) {
  return (content || [])
    .map((part) => (part.type === "text" ? part.text : `[${part.type || "part"}]`))
    .join("\n");
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

function openSocket() {
  const id = app.conversationId;
  const socket = new WebSocket(socketUrl());
  app.socket = socket;
  socket.addEventListener("open", () => {
    app.reconnectDelay = 250;
    setSocketStatus("live");
  });
  socket.addEventListener("message", (message) => {
    let event;
    try { event = JSON.parse(message.data); } catch { return; }
    if (!event || !event.id || app.seen.has(event.id)) return;
    app.seen.add(event.id);
    app.lastEventId = event.id;
    renderEvent(event);
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
    setTimeout(() => { if (app.conversationId === id && !app.socket) openSocket(); }, app.reconnectDelay);
    app.reconnectDelay = Math.min(app.reconnectDelay * 2, 5000);
  });
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

function appendEvent(node, event) {
  node.classList.add("event");
  node.dataset.kind = event.kind;
  node.dataset.id = event.id;
  const list = $("events");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(node);
  if (stick) list.scrollTop = list.scrollHeight;
}

function header(label, event) {
  const head = el("div", "event-head");
  head.append(el("span", "event-label", label));
  if (event.timestamp) {
    head.append(el("time", "muted small", new Date(event.timestamp).toLocaleTimeString()));
  }
  return head;
}

function collapsible(summaryText, bodyText, className) {
  const details = el("details", className);
  details.append(el("summary", null, summaryText));
  details.append(el("pre", null, bodyText));
  return details;
}

function renderEvent(event) {
  const item = el("li");
  switch (event.kind) {
    case "SystemPromptEvent": {
      item.classList.add("system");
      const tools = (event.tools || []).map((t) => (t.function ? t.function.name : t.name));
      item.append(collapsible(`System prompt · tools: ${tools.join(", ") || "none"}`,
        (event.system_prompt && event.system_prompt.text) || ""));
      break;
    }
    case "MessageEvent": {
      const role = event.source === "user" ? "You" : event.source === "hook" ? "Hook" : "Agent";
      const text = textOf(event.llm_message && event.llm_message.content);
      item.classList.add("message", `from-${event.source}`);
      item.append(header(role, event));
      item.append(el("div", "message-text", text));
      if (event.source === "user" && !app.hasTitle && text.trim()) {
        app.hasTitle = true; // the server titles a conversation after its first message
        setTitle(text.trim().split("\n")[0].slice(0, 80));
      }
      break;
    }
    case "ActionEvent": {
      item.classList.add("action");
      item.append(header(`Tool call: ${event.tool_name}`, event));
      const thought = textOf(event.thought);
      if (thought) item.append(el("div", "thought", thought));
      let args = event.action;
      if (!args && event.tool_call) {
        try { args = JSON.parse(event.tool_call.arguments || "{}"); } catch { args = event.tool_call.arguments; }
      }
      item.append(el("pre", "arguments", typeof args === "string" ? args : JSON.stringify(args, null, 2)));
      break;
    }
    case "ObservationEvent": {
      item.classList.add("observation");
      if (event.is_error) item.classList.add("error");
      const text = textOf(event.content);
      const first = text.split("\n")[0].slice(0, 100);
      item.append(collapsible(`Result of ${event.tool_name}${event.is_error ? " (error)" : ""}: ${first}`, text));
      break;
    }
    case "AgentErrorEvent":
      item.classList.add("error");
      item.append(header(`Tool error: ${event.tool_name}`, event));
      item.append(el("pre", null, event.error));
      break;
    case "UserRejectObservation":
      item.classList.add("error");
      item.append(header(`Rejected: ${event.tool_name}`, event));
      item.append(el("div", null, event.rejection_reason));
      break;
    case "ConversationErrorEvent":
      item.classList.add("error");
      item.append(header(`Error: ${event.code}`, event));
      item.append(el("pre", null, event.detail));
      break;
    case "PauseEvent":
      item.classList.add("note");
      item.append(header("Pause requested", event));
      break;
    case "ConversationStateUpdateEvent":
      if (event.key === "execution_status") {
        setExecStatus(event.value);
        item.classList.add("note");
        item.append(header(`Status: ${event.value}`, event));
      } else if (event.key === "goal") {
        renderGoal(event.value);
        item.classList.add("note", "goal-note");
        item.append(header(`Goal: ${goalSummary(event.value)}`, event));
      } else {
        item.classList.add("note");
        item.append(header(`${event.key} updated`, event));
      }
      break;
    default:
      item.classList.add("note");
      item.append(collapsible(event.kind || "event", JSON.stringify(event, null, 2)));
  }
  appendEvent(item, event);
}

// -- goals -------------------------------------------------------------------------------------

function requirementsText(verdict) {
  const reqs = verdict && Array.isArray(verdict.requirements) ? verdict.requirements : null;
  if (!reqs || reqs.length === 0) return null;
  const proven = reqs.filter((r) => r.satisfied).length;
  return `${proven} of ${reqs.length} requirements proven`;
}

function goalSummary(goal) {
  if (!goal) return "none";
  const parts = [goal.status, `${goal.iteration}/${goal.max_iterations}`];
  if (goal.verdict) parts.push(`score ${Math.round(goal.verdict.score * 100)}%`);
  return parts.join(" · ");
}

function renderGoal(goal) {
  app.goal = goal;
  const chip = $("goal-chip");
  chip.replaceChildren();
  const stop = $("goal-stop");
  const resume = $("goal-resume");
  const start = $("goal-start");
  if (!goal) {
    chip.className = "chip chip-none";
    chip.append(el("span", "chip-status", "no goal"));
    chip.dataset.status = "none";
    stop.disabled = true;
    resume.disabled = true;
    start.disabled = false;
    $("goal-detail").textContent = "";
    return;
  }
  chip.className = `chip chip-${goal.status}`;
  chip.dataset.status = goal.status;
  chip.append(el("span", "chip-status", goal.status));
  chip.append(el("span", "chip-part", `iteration ${goal.iteration}/${goal.max_iterations}`));
  if (goal.verdict) {
    chip.append(el("span", "chip-part", `score ${Math.round(goal.verdict.score * 100)}%`));
    const reqs = requirementsText(goal.verdict);
    if (reqs) chip.append(el("span", "chip-part", reqs));
  }
  if (goal.verify) {
    const verify = goal.verify.timed_out ? "verify timed out" : `verify exit ${goal.verify.exit_code}`;
    chip.append(el("span", `chip-part ${goal.verify.exit_code === 0 ? "ok" : "bad"}`, verify));
  }
  if (goal.error) chip.append(el("span", "chip-part bad", `error: ${goal.error}`));
  stop.disabled = !goal.active;
  resume.disabled = goal.active || goal.status !== "interrupted";
  start.disabled = goal.active;
  const detail = [`Objective: ${goal.objective}`];
  if (goal.reason) detail.push(`Reason: ${goal.reason}`);
  if (goal.verdict && goal.verdict.missing && goal.verdict.missing.length) {
    detail.push(`Missing: ${goal.verdict.missing.join("; ")}`);
  }
  if (goal.cost) detail.push(`Cost: $${goal.cost.toFixed(4)}`);
  $("goal-detail").textContent = detail.join("  ·  ");
}

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

// -- wiring ------------------------------------------------------------------------------------

function saveKey(event) {
  event.preventDefault();
  const value = $("session-key").value.trim();
  if (value) localStorage.setItem(KEY_STORAGE, value);
  else localStorage.removeItem(KEY_STORAGE);
  notify(value ? "Session key saved in this browser." : "Session key cleared.", "info");
  loadConversations();
  if (app.conversationId) openConversation(app.conversationId);
}

document.addEventListener("DOMContentLoaded", () => {
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
});

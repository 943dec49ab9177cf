// The agent server's web page: plain ES modules, no build step, nothing fetched from elsewhere.
// Every piece of server data is put on the page as text (never innerHTML); see markdown.js.
//
// This module wires the page: the open conversation (#/conversations/<id>), its event stream,
// and the forms. The list, goal, progress, usage and approval modules draw their parts.

import { KEY_QUERY, api, saveSessionKey, sessionKey } from "./api.js";
import { initApproval, updateApproval } from "./approval.js";
import { addCheckpoint, initChanges, resetChanges } from "./changes.js";
import {
  conversationHash, initConversations, loadConversations, markCurrent, titleOf, updateListItem,
} from "./conversations.js";
import { $, setDisabled } from "./dom.js";
import { fullTime, relativeTime } from "./format.js";
import { continueRequest, goalRequest, setGoalConversationOpen, setGoalExecutionStatus, showGoal } from "./goal.js";
import { initNewConversation, loadChoices } from "./newconv.js";
import { clearNotices, notify } from "./notices.js";
import { PendingActions } from "./pending.js";
import {
  progressChanges, progressEvent, progressGoal, progressStatus, resetProgress,
} from "./progress.js";
import { appendEvent, renderEvent } from "./render.js";
import { initSettings, showSettings } from "./settings.js";
import { GoalCost } from "./goalcost.js";
import { statusOf } from "./status.js";
import { resetUsage, updateUsage } from "./usage.js";

/** While the agent or a goal works, the open conversation's cost and tokens are re-read this often. */
const USAGE_POLL_SECONDS = 5;

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
  runAt: 0, // ... and when the agent last started to run (a plain run after a goal's end)
  pendingInfo: null,
  status: "idle",
  goal: null,
  objective: "", // only a goal's first status event holds it; later ones refer to that one
  goalValue: null, // the newest goal status as received (compact)
  goalCost: new GoalCost(), // the one cost figure of the goal (see goalcost.js)
  rewound: null, // a rewind made after the newest goal status (its RewindResult), or null
  pending: new PendingActions(),
  usageTimer: 0,
};

// -- opening and closing a conversation ----------------------------------------------------------

function conversationIdFromHash() {
  const match = /^#\/conversations\/([0-9a-fA-F-]{32,36})$/.exec(location.hash);
  return match ? match[1] : null;
}

/** Show what the address names: the settings (#/settings/<tab>), a conversation, or none;
 * `focus` moves the keyboard focus to it. */
function route(focus) {
  const settings = /^#\/settings(?:\/([a-z]+))?$/.exec(location.hash);
  $("settings-view").hidden = !settings;
  $("conversations-view").hidden = Boolean(settings);
  markView(settings ? "settings" : "conversations");
  if (settings) {
    closeConversation();
    showSettings(settings[1] || "llm", focus);
    return;
  }
  const id = conversationIdFromHash();
  if (!id) closeConversation();
  else if (id !== app.conversationId) openConversation(id, focus);
}

function markView(view) {
  for (const [id, name] of [["nav-conversations", "conversations"], ["nav-settings", "settings"]]) {
    if (name === view) $(id).setAttribute("aria-current", "page");
    else $(id).removeAttribute("aria-current");
  }
}

function goHome() {
  history.replaceState(null, "", location.pathname + location.search);
  closeConversation();
}

function closeConversation() {
  closeSocket();
  app.conversationId = null;
  $("conversation").hidden = true;
  $("placeholder").hidden = false;
  markCurrent(null);
  setGoalConversationOpen(false);
  updateApproval(null, "idle", null);
}

async function openConversation(id, focus = false) {
  closeSocket();
  Object.assign(app, {
    conversationId: id, lastEventId: null, seen: new Set(), reconnectDelay: 250, statusAt: 0,
    goalAt: 0, runAt: 0, pendingInfo: null, status: "idle", goal: null, objective: "", pending: new PendingActions(),
    goalValue: null, rewound: null, goalCost: new GoalCost(),
  });
  $("events").replaceChildren();
  $("placeholder").hidden = true;
  $("conversation").hidden = false;
  $("conv-id").textContent = id;
  $("conv-title").textContent = "Conversation";
  markCurrent(id);
  setGoalConversationOpen(true);
  resetChanges(id, progressChanges);
  resetProgress(app.pending);
  resetUsage();
  showGoalValue(null);
  setExecStatus("idle", undefined, false); // until the info says (the list row keeps its own)
  if (focus) $("conv-title").focus();
  let info;
  try {
    info = await api("GET", `/api/conversations/${id}`);
  } catch (err) {
    if (app.conversationId !== id) return;
    if (err.status === 404) {
      notify(`Conversation ${id} was not found on the server (it may have been deleted).`);
      goHome();
    } else {
      notify(err.message);
    }
    return;
  }
  if (app.conversationId !== id) return; // another one was opened meanwhile
  app.hasTitle = Boolean(info.title);
  $("conv-title").textContent = titleOf(info);
  resetUsage(info.agent && info.agent.llm && info.agent.llm.usage_id);
  showInfoDetails(info);
  setExecStatus(info.execution_status);
  if (info.goal) showGoalValue(info.goal);
  openSocket();
}

function showInfoDetails(info) {
  updateUsage(info.metrics);
  for (const [node, iso, what] of [[$("conv-created"), info.created_at, "Created"], [$("conv-updated"), info.updated_at, "Last change"]]) {
    node.dateTime = iso || "";
    node.textContent = `${what} ${relativeTime(iso)}`;
    node.title = fullTime(iso);
  }
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
    // A `full_state` snapshot is not an event of the log (the server sends one on open and
    // after each run, for the reference's clients): its id must not become `after`.
    if (event && event.kind === "ConversationStateUpdateEvent" && event.key === "full_state") return;
    if (!event || !event.id || app.seen.has(event.id)) return;
    app.seen.add(event.id);
    app.lastEventId = event.id;
    app.pending.observe(event);
    progressEvent(event);
    showEvent(event);
    updateApproval(app.conversationId, app.status, app.pending, Boolean(app.goal && app.goal.active));
    applyPendingInfo();
  });
  socket.addEventListener("close", (close) => {
    if (app.socket !== socket || app.conversationId !== id) return; // replaced on purpose
    app.socket = null;
    setSocketStatus("offline");
    if (close.code === 1008 || close.code === 4001 || close.code === 4401 || close.code === 4403) {
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
  if (app.goalAt <= pending.count) showGoalValue(pending.info.goal || null);
  showInfoDetails(pending.info);
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

// -- status, goal and usage of the open conversation ---------------------------------------------

/** The header's one status: the goal's while it runs, and after it ended until the agent runs
 * again outside it (a stop's pause, for one, comes after the goal's `interrupted`). */
function renderStatusBadge() {
  const shown = statusOf(app.status, app.goal, app.goalAt >= app.runAt);
  const badge = $("exec-status");
  badge.textContent = shown.text;
  badge.className = `badge tone-${shown.tone}`;
  badge.dataset.status = app.status;
  badge.dataset.shown = shown.key;
}

function setExecStatus(status, timestamp, listToo = true) {
  app.status = status;
  renderStatusBadge();
  setGoalExecutionStatus(status);
  progressStatus(status, timestamp);
  updateApproval(app.conversationId, status, app.pending, Boolean(app.goal && app.goal.active));
  if (listToo) updateListItem(app.conversationId, { execution_status: status });
  updatePause();
  scheduleUsage();
}

/** Show a goal status from an event (compact: maybe no objective) or from the API (full). */
function showGoalValue(value, timestamp) {
  let goal = null;
  app.goalValue = value;
  if (value) {
    if (typeof value.objective === "string") app.objective = value.objective;
    const objective = typeof value.objective === "string" ? value.objective : app.objective;
    goal = { ...value, objective, rewound: value.active ? null : app.rewound, cost: app.goalCost.cost(value) };
  }
  app.goal = goal;
  renderStatusBadge();
  showGoal(goal);
  progressGoal(goal, timestamp);
  if (goal) updateListItem(app.conversationId, { goal });
  updatePause();
  scheduleUsage();
}

function updatePause() {
  const busy = app.status === "running" || Boolean(app.goal && app.goal.active);
  setDisabled($("pause"), busy ? "" : "Nothing to pause: the agent is not running.");
}

// Cost and tokens are in the conversation's info (and in `stats` events when a run ends); while
// work goes on they are re-read every few seconds, and soon after each status change.
function scheduleUsage() {
  clearTimeout(scheduleUsage.timer);
  scheduleUsage.timer = setTimeout(refreshUsage, 500);
}

async function refreshUsage() {
  const id = app.conversationId;
  if (!id || !app.socket) return;
  try {
    const info = await api("GET", `/api/conversations/${id}`);
    if (app.conversationId === id) showInfoDetails(info);
  } catch {
    // the socket's reconnect reports an unreachable or deleted conversation
  }
}

function pollUsage() {
  const busy = app.status === "running" || Boolean(app.goal && app.goal.active);
  if (busy && document.visibilityState === "visible") refreshUsage();
}

function setTitle(title) {
  $("conv-title").textContent = title;
  updateListItem(app.conversationId, { title });
}

function showEvent(event) {
  const { node, noisy } = renderEvent(event, {
    status(value) {
      app.statusAt = app.seen.size;
      if (value === "running") {
        app.runAt = app.seen.size;
        app.goalCost.running();
      }
      setExecStatus(value, event.timestamp);
    },
    goal(value) {
      app.goalAt = app.seen.size;
      app.rewound = null; // a newer goal status (restarted, resumed) says what is true now
      app.goalCost.goal(value);
      showGoalValue(value, event.timestamp);
    },
    stats(usage) {
      updateUsage(usage);
      app.goalCost.stats(usage);
      if (app.goalValue && !app.goalValue.active) showGoalValue(app.goalValue); // its final cost
    },
    checkpoint(value) {
      addCheckpoint(value);
    },
    rewind(value) {
      app.rewound = value; // the goal's files are no longer what it ended with
      if (app.goalValue) showGoalValue(app.goalValue);
      scheduleUsage(); // re-reads the info: the list shows the conversation changed
    },
    userText(text) {
      if (app.hasTitle) return;
      app.hasTitle = true; // the server titles a conversation after its first message
      setTitle(text.split("\n")[0].slice(0, 80));
    },
  });
  const list = $("events");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  appendEvent(list, node, noisy);
  if (stick) list.scrollTop = list.scrollHeight;
}

// -- actions -----------------------------------------------------------------------------------

async function startGoal(event) {
  event.preventDefault();
  let body;
  try {
    body = goalRequest(event.target);
  } catch (err) {
    notify(err.message);
    return;
  }
  await goalCall("", body, "Goal started.");
}

async function goalCall(suffix, body, done) {
  if (!app.conversationId) return;
  try {
    await api("POST", `/api/conversations/${app.conversationId}/goal${suffix}`, body);
    notify(done, "info");
  } catch (err) {
    notify(err.message);
  }
}

function continueGoal(event) {
  event.preventDefault();
  let body;
  try {
    body = continueRequest($("goal-continue"));
  } catch (err) {
    notify(err.message);
    return;
  }
  goalCall("/resume", body, "Goal continued with new limits.");
}

/** What a rewind's outcome offers: start a complete goal again (its form filled in), continue
 * a capped one with new limits, or resume a stopped one. */
function nextStep(kind) {
  const goal = app.goal;
  if (kind === "resume") {
    goalCall("/resume", undefined, "Goal resumed.");
  } else if (kind === "continue") {
    $("continue-max").focus();
  } else if (kind === "restart" && goal) {
    const form = $("goal-form");
    form.objective.value = goal.objective || "";
    form.verify.value = goal.verify_command || "";
    form.max_iterations.value = String((goal.limits && goal.limits.max_iterations) || goal.max_iterations || "");
    form.scrollIntoView({ block: "nearest" });
    form.objective.focus();
  }
}

async function sendMessage(event) {
  event.preventDefault();
  const box = $("message");
  const text = box.value.trim();
  if (!text || !app.conversationId) return;
  const body = { role: "user", content: [{ type: "text", text }], run: $("message-run").checked };
  setDisabled($("send"), "Sending the message…");
  try {
    await api("POST", `/api/conversations/${app.conversationId}/events`, body);
    box.value = "";
  } catch (err) {
    notify(err.message);
  } finally {
    setDisabled($("send"), "");
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

function saveKey(event) {
  event.preventDefault();
  const value = $("session-key").value.trim();
  saveSessionKey(value);
  clearNotices("session API key"); // shown again if this key is refused too
  notify(value ? "Session key saved in this browser." : "Session key cleared.", "info");
  loadConversations();
  loadChoices();
  if (app.conversationId) openConversation(app.conversationId);
}

function init() {
  $("session-key").value = sessionKey();
  $("key-form").addEventListener("submit", saveKey);
  initNewConversation({
    async onCreated(info) {
      await loadConversations();
      location.hash = conversationHash(info.id); // opens it (and the address survives a reload)
    },
  });
  initSettings({ onChange: loadChoices });
  $("goal-form").addEventListener("submit", startGoal);
  $("goal-stop").addEventListener("click", () => goalCall("/stop", undefined, "Goal stopped."));
  $("goal-resume").addEventListener("click", () => goalCall("/resume", undefined, "Goal resumed."));
  $("goal-continue").addEventListener("submit", continueGoal);
  $("message-form").addEventListener("submit", sendMessage);
  $("message").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("message-form").requestSubmit();
  });
  $("pause").addEventListener("click", pause);
  initApproval();
  initChanges({ nextStep });
  initConversations({
    onDeleted(id) {
      if (id === app.conversationId) goHome();
    },
  });
  window.addEventListener("hashchange", () => route(true));
  setInterval(pollUsage, USAGE_POLL_SECONDS * 1000);
  setGoalConversationOpen(false);
  updatePause();
  loadConversations();
  loadChoices();
  route(false);
}

init(); // module scripts run after the document is parsed

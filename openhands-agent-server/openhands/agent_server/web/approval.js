// Human approval: while a conversation is `waiting_for_confirmation`, show the tool calls that
// wait (a command as a command, a file edit as the change it would make) with Approve, Reject
// (an optional reason), and "always allow" for calls like these or for their tools in this
// conversation (standing approvals: POST /approval_rules, then the approval).

import { api } from "./api.js";
import { callView, ruleText } from "./calls.js";
import { $, el, replaceIfChanged, setDisabled } from "./dom.js";
import { notify } from "./notices.js";

const state = {
  conversationId: null,
  status: "idle",
  pending: null,
  sending: false,
  answered: false,
  goalActive: false,
  suggestions: null, // {key, like_these, tools} for the calls shown
};

/** Show or hide the approval panel for conversation `id` in `status`; `pending` is its
 * PendingActions; `goalActive` whether a goal drives it (then the goal runs the agent). */
export function updateApproval(id, status, pending, goalActive = false) {
  if (id !== state.conversationId || status !== state.status) state.answered = false;
  Object.assign(state, { conversationId: id, status, pending, goalActive });
  render();
}

function actionItem(action) {
  const item = el("li", "pending-action");
  item.dataset.id = action.id;
  item.dataset.tool = action.tool_name;
  item.append(el("span", "pending-tool", action.tool_name));
  const thought = (action.thought || []).map((part) => part.text || "").join("\n").trim();
  if (thought) item.append(el("p", "muted small pending-thought", thought));
  item.append(callView(action));
  return item;
}

async function loadSuggestions(key) {
  const id = state.conversationId;
  try {
    const found = await api("GET", `/api/conversations/${id}/approval_rules/suggested`);
    if (id === state.conversationId) state.suggestions = { key, ...found };
  } catch {
    state.suggestions = { key, like_these: [], tools: [] };
  }
  render();
}

function renderAlways(key) {
  const like = $("allow-like");
  const tools = $("allow-tools");
  const found = state.suggestions && state.suggestions.key === key ? state.suggestions : null;
  const likeRules = found ? found.like_these : [];
  const toolRules = found ? found.tools : [];
  // The two offers are the same when no call has a command prefix: show one.
  const same = JSON.stringify(likeRules) === JSON.stringify(toolRules);
  like.hidden = likeRules.length === 0 || same;
  tools.hidden = toolRules.length === 0;
  like.textContent = `Always allow ${likeRules.map(ruleText).join("; ")}`;
  const names = toolRules.map((rule) => rule.tool).join(", ");
  tools.textContent = `Always allow ${names}`;
  like.dataset.rules = JSON.stringify(likeRules);
  tools.dataset.rules = JSON.stringify(toolRules);
}

function render() {
  const panel = $("approval");
  const waiting = state.status === "waiting_for_confirmation" && Boolean(state.conversationId);
  panel.hidden = !waiting;
  if (!waiting) return;
  const actions = state.pending ? state.pending.awaitingApproval() : [];
  const key = actions.map((a) => a.id).join(",");
  replaceIfChanged($("approval-actions"), key, () =>
    actions.length ? actions.map(actionItem) : [el("li", "muted", "The waiting call is not among the events received yet.")]);
  if (actions.length && (!state.suggestions || state.suggestions.key !== key)) {
    state.suggestions = { key: `loading:${key}`, like_these: [], tools: [] };
    loadSuggestions(key);
  }
  renderAlways(key);
  $("approve").textContent = actions.length > 1 ? `Approve all ${actions.length}` : "Approve";
  let why = "";
  if (state.sending) why = "Sending your answer…";
  else if (state.answered) why = "Answered: waiting for the agent to go on.";
  for (const id of ["approve", "reject", "allow-like", "allow-tools"]) setDisabled($(id), why);
}

async function respond(accept, rules = []) {
  const id = state.conversationId;
  const body = { accept };
  const reason = $("reject-reason").value.trim();
  if (!accept && reason) body.reason = reason; // else the server's default reason
  state.sending = true;
  render();
  try {
    for (const rule of rules) await api("POST", `/api/conversations/${id}/approval_rules`, rule);
    await api("POST", `/api/conversations/${id}/events/respond_to_confirmation`, body);
    // A rejection is only recorded (an approval runs the calls); without a goal driving the
    // conversation, run it so the agent reads the rejection and goes on.
    if (!accept && !state.goalActive) await api("POST", `/api/conversations/${id}/run`);
    if (id === state.conversationId) {
      state.answered = true;
      $("reject-reason").value = "";
    }
    if (rules.length) notify(`From now on ${rules.map(ruleText).join("; ")} run without asking.`, "info");
  } catch (err) {
    notify(`Could not ${accept ? "approve" : "reject"} the action: ${err.message}`);
  } finally {
    state.sending = false;
    render();
  }
}

function rulesOf(button) {
  try {
    return JSON.parse(button.dataset.rules || "[]");
  } catch {
    return [];
  }
}

/** Wire the panel's buttons (once, at start-up). */
export function initApproval() {
  $("approve").addEventListener("click", () => respond(true));
  $("reject").addEventListener("click", () => respond(false));
  $("allow-like").addEventListener("click", () => respond(true, rulesOf($("allow-like"))));
  $("allow-tools").addEventListener("click", () => respond(true, rulesOf($("allow-tools"))));
}

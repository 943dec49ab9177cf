// Human approval: while a conversation is `waiting_for_confirmation`, show the tool calls that
// wait (name and arguments) with Approve and Reject (an optional reason) buttons, which answer
// POST /api/conversations/{id}/events/respond_to_confirmation {accept, reason}.

import { api } from "./api.js";
import { $, el, replaceIfChanged, setDisabled } from "./dom.js";
import { notify } from "./notices.js";

const state = { conversationId: null, status: "idle", pending: null, sending: false, answered: false, goalActive: false };

/** Show or hide the approval panel for conversation `id` in `status`; `pending` is its
 * PendingActions; `goalActive` whether a goal drives it (then the goal runs the agent). */
export function updateApproval(id, status, pending, goalActive = false) {
  if (id !== state.conversationId || status !== state.status) state.answered = false;
  Object.assign(state, { conversationId: id, status, pending, goalActive });
  render();
}

function argumentsText(action) {
  if (action.action) {
    const { kind, ...args } = action.action; // the action's class name is not an argument
    return JSON.stringify(args, null, 2);
  }
  return (action.tool_call && action.tool_call.arguments) || "{}";
}

function actionItem(action) {
  const item = el("li", "pending-action");
  item.dataset.id = action.id;
  item.append(el("span", "pending-tool", action.tool_name));
  const thought = (action.thought || []).map((part) => part.text || "").join("\n").trim();
  if (thought) item.append(el("p", "muted small pending-thought", thought));
  const args = el("pre", "arguments", argumentsText(action));
  args.tabIndex = 0; // long arguments scroll: the keyboard must reach them
  item.append(args);
  return item;
}

function render() {
  const panel = $("approval");
  const waiting = state.status === "waiting_for_confirmation" && Boolean(state.conversationId);
  panel.hidden = !waiting;
  if (!waiting) return;
  const actions = state.pending ? state.pending.awaitingApproval() : [];
  replaceIfChanged($("approval-actions"), actions.map((a) => a.id).join(","), () =>
    actions.length ? actions.map(actionItem) : [el("li", "muted", "The waiting call is not among the events received yet.")]);
  let why = "";
  if (state.sending) why = "Sending your answer…";
  else if (state.answered) why = "Answered: waiting for the agent to go on.";
  setDisabled($("approve"), why);
  setDisabled($("reject"), why);
}

async function respond(accept) {
  const id = state.conversationId;
  const body = { accept };
  const reason = $("reject-reason").value.trim();
  if (!accept && reason) body.reason = reason; // else the server's default reason
  state.sending = true;
  render();
  try {
    await api("POST", `/api/conversations/${id}/events/respond_to_confirmation`, body);
    // A rejection is only recorded (an approval runs the calls); without a goal driving the
    // conversation, run it so the agent reads the rejection and goes on.
    if (!accept && !state.goalActive) await api("POST", `/api/conversations/${id}/run`);
    if (id === state.conversationId) {
      state.answered = true;
      $("reject-reason").value = "";
    }
  } catch (err) {
    notify(`Could not ${accept ? "approve" : "reject"} the action: ${err.message}`);
  } finally {
    state.sending = false;
    render();
  }
}

/** Wire the panel's buttons (once, at start-up). */
export function initApproval() {
  $("approve").addEventListener("click", () => respond(true));
  $("reject").addEventListener("click", () => respond(false));
}

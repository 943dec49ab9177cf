// The goal panel's chip, its Start / Stop / Resume buttons, the request its form builds, and
// the "Continue with new limits" form a capped goal gets. The start form is hidden while a
// goal runs (its objective is shown above it): Stop is what applies.

import { $, el, setDisabled } from "./dom.js";
import { formatCost, percent } from "./format.js";

const shown = { goal: null, status: "idle", open: false };

export function requirementsText(verdict) {
  const reqs = verdict && Array.isArray(verdict.requirements) ? verdict.requirements : null;
  if (!reqs || reqs.length === 0) return null;
  const proven = reqs.filter((r) => r.satisfied).length;
  return `${proven} of ${reqs.length} requirements proven`;
}

/** The chip's first word: the goal status, or "waiting for approval" while its agent waits. */
export function chipStatus(goal, executionStatus) {
  if (!goal) return "no goal";
  if (goal.active && executionStatus === "waiting_for_confirmation") return "waiting for approval";
  if (goal.active && goal.phase === "waiting_for_approval") return "waiting for approval";
  return goal.status;
}

// The server answers 409 to Start and Resume until the agent's current step has ended (a
// stopped goal is `interrupted` at once, the agent stops a moment later), so the buttons wait.
function updateButtons() {
  const { goal, status, open } = shown;
  const active = Boolean(goal && goal.active);
  const agentBusy = status === "running";
  let start = "";
  if (!open) start = "Open a conversation first.";
  else if (active) start = "A goal is already running: stop it first.";
  else if (agentBusy) start = "The agent is running: wait until it stops, or pause it.";
  setDisabled($("goal-start"), start);
  $("goal-form").hidden = open && active;
  setDisabled($("goal-stop"), active ? "" : "No goal is running.");
  let resume = "";
  if (!goal) resume = "There is no goal to resume.";
  else if (active) resume = "The goal is running.";
  else if (goal.status === "capped") resume = "A capped goal continues with new limits: use the form below.";
  else if (goal.status !== "interrupted") resume = `Only an interrupted goal can be resumed; this one is ${goal.status}.`;
  else if (agentBusy) resume = "The agent is still finishing its last step.";
  setDisabled($("goal-resume"), resume);
  updateContinueForm(open && goal && !active && goal.status === "capped" ? goal : null, agentBusy);
}

/** Show the "Continue with new limits" form for a capped `goal` (null hides it). */
function updateContinueForm(goal, agentBusy) {
  const form = $("goal-continue");
  form.hidden = !goal;
  if (!goal) return;
  const limits = goal.limits || {};
  $("goal-continue-why").textContent =
    `The goal was capped: ${goal.reason || "a limit was reached"}. Give it more room to go on from round ${goal.iteration + 1}; ` +
    "the rounds, cost and time it used count toward the new limits. A field left empty keeps its limit; 0 lifts a budget.";
  // Suggest more rounds once per capped goal; never overwrite what the person typed.
  const key = `${goal.objective}|${goal.iteration}|${limits.max_iterations}`;
  if (form.dataset.for !== key) {
    form.dataset.for = key;
    form.max_iterations.value = String(goal.iteration + Math.max(1, Math.floor(goal.iteration / 2)));
    form.max_cost.value = "";
    form.time_limit.value = "";
  }
  form.max_iterations.min = String(goal.iteration + 1);
  form.max_cost.placeholder = limits.max_cost ? `now $${limits.max_cost}` : "no limit";
  form.time_limit.placeholder = limits.time_limit ? `now ${+(limits.time_limit / 60).toFixed(2)}` : "no limit";
  setDisabled($("goal-continue-submit"), agentBusy ? "The agent is still finishing its last step." : "");
}

/** The body of POST /goal/resume the continue form describes; throws an Error naming a bad field. */
export function continueRequest(form) {
  const body = {};
  const rounds = form.max_iterations.value.trim();
  if (rounds) {
    const value = Number(rounds);
    if (!Number.isInteger(value) || value < 1) throw new Error("Max iterations must be a whole number of 1 or more.");
    body.max_iterations = value;
  }
  for (const [name, label, scale] of [["max_cost", "Max cost", 1], ["time_limit", "Time limit", 60]]) {
    const raw = form[name].value.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${label} must be a number of 0 or more.`);
    body[name] = value * scale;
  }
  if (Object.keys(body).length === 0) throw new Error("Give at least one new limit to continue a capped goal.");
  return body;
}

/** Whether a conversation is open (the buttons need one). */
export function setGoalConversationOpen(open) {
  shown.open = open;
  updateButtons();
}

/** The conversation's execution status (the buttons and the chip depend on it). */
export function setGoalExecutionStatus(status) {
  shown.status = status;
  updateButtons();
  renderChip();
}

/** Show `goal`, a full GoalStatus (objective included), or null. */
export function showGoal(goal) {
  shown.goal = goal;
  updateButtons();
  renderChip();
}

function renderChip() {
  const goal = shown.goal;
  const chip = $("goal-chip");
  chip.replaceChildren();
  const status = chipStatus(goal, shown.status);
  chip.dataset.status = goal ? goal.status : "none";
  chip.dataset.waiting = String(status === "waiting for approval");
  chip.className = `chip chip-${goal ? goal.status : "none"}${status === "waiting for approval" ? " chip-waiting" : ""}`;
  chip.append(el("span", "chip-status", status));
  if (!goal) return;
  const round = Math.min(goal.iteration + (goal.active ? 1 : 0), goal.max_iterations);
  chip.append(el("span", "chip-part", `round ${round}/${goal.max_iterations}`));
  if (goal.verdict) {
    chip.append(el("span", "chip-part", `score ${percent(goal.verdict.score)}`));
    const reqs = requirementsText(goal.verdict);
    if (reqs) chip.append(el("span", "chip-part", reqs));
  }
  if (goal.verify) {
    const verify = goal.verify.timed_out ? "verify timed out" : `verify exit ${goal.verify.exit_code}`;
    chip.append(el("span", `chip-part ${goal.verify.exit_code === 0 ? "ok" : "bad"}`, verify));
  }
  if (goal.cost) chip.append(el("span", "chip-part chip-cost", formatCost(goal.cost)));
  if (goal.rewound) chip.append(el("span", "chip-part rewound", "files rewound"));
}

function number(form, name, label, convert = (v) => v) {
  const raw = form[name].value.trim();
  if (!raw) return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${label} must be a number of 0 or more.`);
  return value === 0 ? null : convert(value);
}

/** The StartGoalRequest the goal form describes; throws an Error naming a bad field. */
export function goalRequest(form) {
  const body = { objective: form.objective.value.trim() };
  // Blank: the server's default round cap (defined once, in the SDK).
  const rounds = parseInt(form.max_iterations.value, 10);
  if (rounds) body.max_iterations = rounds;
  if (form.verify.value.trim()) body.verify = form.verify.value.trim();
  const maxCost = number(form, "max_cost", "Max cost");
  if (maxCost !== null) body.max_cost = maxCost;
  const minutes = number(form, "time_limit", "Time limit", (m) => m * 60);
  if (minutes !== null) body.time_limit = minutes;
  const model = form.judge_model.value.trim();
  if (model) {
    body.judge_llm = { model, usage_id: "goal-judge" };
    if (form.judge_base_url.value.trim()) body.judge_llm.base_url = form.judge_base_url.value.trim();
    if (form.judge_api_key.value) body.judge_llm.api_key = form.judge_api_key.value;
  } else if (form.judge_base_url.value.trim() || form.judge_api_key.value) {
    throw new Error("Judge model is needed when a judge base URL or API key is given.");
  }
  return body;
}

// The goal panel's progress chip and buttons, from a GoalStatus (or null).

import { $, el } from "./dom.js";

function requirementsText(verdict) {
  const reqs = verdict && Array.isArray(verdict.requirements) ? verdict.requirements : null;
  if (!reqs || reqs.length === 0) return null;
  const proven = reqs.filter((r) => r.satisfied).length;
  return `${proven} of ${reqs.length} requirements proven`;
}

export function goalSummary(goal) {
  if (!goal) return "none";
  const parts = [goal.status, `${goal.iteration}/${goal.max_iterations}`];
  if (goal.verdict) parts.push(`score ${Math.round(goal.verdict.score * 100)}%`);
  return parts.join(" · ");
}

const shown = { goal: null, agentRunning: false, objective: "" };

// The server answers 409 to Start and Resume until the agent's current step has ended (a
// stopped goal is `interrupted` at once, the agent stops a moment later), so the buttons wait.
function updateButtons() {
  const goal = shown.goal;
  const active = Boolean(goal && goal.active);
  $("goal-stop").disabled = !active;
  $("goal-resume").disabled = !goal || active || goal.status !== "interrupted" || shown.agentRunning;
  $("goal-start").disabled = active || shown.agentRunning;
}

/** Tell the goal buttons whether the agent is running (from the execution status). */
export function setAgentRunning(running) {
  shown.agentRunning = running;
  updateButtons();
}

export function renderGoal(goal) {
  const chip = $("goal-chip");
  chip.replaceChildren();
  shown.goal = goal;
  updateButtons();
  if (!goal) {
    shown.objective = "";
    chip.className = "chip chip-none";
    chip.append(el("span", "chip-status", "no goal"));
    chip.dataset.status = "none";
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
  // Only a goal's first status event carries the objective; later ones refer to it.
  if (goal.objective !== undefined) shown.objective = goal.objective;
  const detail = [`Objective: ${shown.objective}`];
  if (goal.reason) detail.push(`Reason: ${goal.reason}`);
  if (goal.verdict && goal.verdict.missing) detail.push(`Missing: ${goal.verdict.missing}`);
  if (goal.cost) detail.push(`Cost: $${goal.cost.toFixed(4)}`);
  $("goal-detail").textContent = detail.join("  ·  ");
}

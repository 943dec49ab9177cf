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

export function renderGoal(goal) {
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

// What a goal is doing while it works: the phase line (with elapsed time), the requirements the
// judge found proven or not, and the round timeline (one row per judged round, with that
// round's verify output, the judge's evidence and the files the round changed).

import {
  checkpointOf, diffDetails, goalSpan, outcomesKey, rewindButton, setRewindContext,
} from "./changes.js";
import { $, el, replaceIfChanged, srOnly } from "./dom.js";
import { formatCost, formatDuration, percent } from "./format.js";
import { requirementsText } from "./goal.js";
import { renderInline } from "./markdown.js";

const state = {
  goal: null,
  goalAt: 0, // when the shown goal status was recorded (ms)
  phaseSince: 0, // when the goal's phase began
  status: "idle",
  statusSince: 0,
  thinkingSince: 0, // the last moment the agent started thinking (a run began, a tool ended)
  rounds: new Map(), // round number -> {round: GoalRound, verdict, verify} of that round
  pending: null, // a PendingActions
  openDetails: new Set(), // rounds whose details a person opened (kept open across redraws)
  timer: 0,
};

function time(iso) {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Date.now() : ms;
}

/** Forget everything shown (another conversation opens); `pending` tracks its tool calls. */
export function resetProgress(pending) {
  Object.assign(state, {
    goal: null, goalAt: 0, phaseSince: 0, status: "idle", statusSince: 0, thinkingSince: 0,
    rounds: new Map(), pending, openDetails: new Set(),
  });
  render();
}

/** A goal status (full: the objective filled in), recorded at `timestamp` (ISO) or now. */
export function progressGoal(goal, timestamp) {
  const at = timestamp ? time(timestamp) : Date.now();
  const previous = state.goal;
  if (goal && goal.iteration === 0 && goal.status === "running" && !(previous && previous.active)) {
    state.rounds = new Map(); // a new goal: its own timeline
  }
  if (!previous || !goal || previous.phase !== goal.phase || previous.active !== goal.active) {
    state.phaseSince = at;
  }
  if (goal && goal.last_round) {
    // The status recorded right after a round was judged holds that round's verdict and
    // verify result; later statuses of the same round repeat them.
    const number = goal.last_round.iteration;
    const known = state.rounds.get(number);
    if (!known || goal.iteration === number) {
      state.rounds.set(number, { round: goal.last_round, verdict: goal.verdict, verify: goal.verify });
    }
  }
  state.goal = goal;
  state.goalAt = at;
  render();
}

/** Redraw what shows changes (a checkpoint arrived). */
export function progressChanges() {
  render();
}

/** The conversation's execution status, set at `timestamp` (ISO) or now. */
export function progressStatus(status, timestamp) {
  const at = timestamp ? time(timestamp) : Date.now();
  if (status !== state.status) state.statusSince = at;
  if (status === "running" && state.status !== "running") state.thinkingSince = at;
  state.status = status;
  render();
}

/** Any other event: a tool result means the agent thinks again from then on. */
export function progressEvent(event) {
  const kinds = ["ObservationEvent", "UserRejectObservation", "AgentErrorEvent", "MessageEvent"];
  if (kinds.includes(event.kind)) state.thinkingSince = time(event.timestamp);
  if (event.kind === "ActionEvent" || kinds.includes(event.kind)) render();
}

function toolNames(actions) {
  return [...new Set(actions.map((a) => a.tool_name))].join(", ");
}

// [what, since-ms, key for tests] or null when nothing is happening.
function phase() {
  const goal = state.goal;
  const active = Boolean(goal && goal.active);
  const calls = state.pending ? state.pending.unanswered() : [];
  if (state.status === "waiting_for_confirmation") {
    const waiting = state.pending ? state.pending.awaitingApproval() : [];
    const names = toolNames(waiting);
    return [`Waiting for your approval${names ? `: ${names}` : ""}`, state.statusSince, "approval"];
  }
  if (active && goal.phase === "judging") return [`Judging round ${goal.iteration + 1}`, state.phaseSince, "judging"];
  if (active && goal.phase === "verifying") {
    return [`Verifying: ${goal.verify_command || "the verify command"}`, state.phaseSince, "verifying"];
  }
  if (state.status === "running") {
    if (calls.length) return [`Running tool: ${toolNames(calls)}`, time(calls[calls.length - 1].timestamp), "tool"];
    return ["Agent thinking", state.thinkingSince || state.statusSince, "thinking"];
  }
  if (active) return ["Starting the agent", state.phaseSince, "starting"];
  return null;
}

function renderPhase() {
  const line = $("phase");
  const now = phase();
  line.hidden = !now;
  line.dataset.phase = now ? now[2] : "idle";
  if (!now) return;
  $("phase-text").textContent = now[0];
  $("phase-elapsed").textContent = formatDuration(Math.floor((Date.now() - now[1]) / 1000));
}

function budgetText(goal) {
  const parts = [];
  const round = Math.min(goal.iteration + (goal.active ? 1 : 0), goal.max_iterations);
  parts.push(`Round ${round} of ${goal.max_iterations}`);
  const cost = `Cost ${formatCost(goal.cost)}`;
  const limits = goal.limits || {};
  parts.push(limits.max_cost ? `${cost} of ${formatCost(limits.max_cost)}` : cost);
  let elapsed = goal.elapsed;
  // The goal's clock stops while a person decides on an approval (it is not the goal's time).
  const ticking = goal.active && goal.phase !== "waiting_for_approval";
  if (ticking) elapsed = Math.floor(elapsed + Math.max(0, Date.now() - state.goalAt) / 1000);
  const spent = `Time ${formatDuration(elapsed)}`;
  parts.push(limits.time_limit ? `${spent} of ${formatDuration(limits.time_limit)}` : spent);
  return parts.join(" · ");
}

function requirementItems(verdict) {
  return verdict.requirements.map((req) => {
    const item = el("li", req.satisfied ? "req proven" : "req unproven");
    item.dataset.satisfied = String(req.satisfied);
    const mark = el("span", "req-mark", req.satisfied ? "✓" : "✗");
    mark.setAttribute("aria-hidden", "true");
    const text = el("span", "req-text");
    text.append(renderInline(req.text));
    item.append(mark, srOnly(req.satisfied ? "Proven: " : "Not proven: "), text);
    if (req.evidence) item.append(el("span", "req-evidence muted small", req.evidence));
    return item;
  });
}

function cell(label, text, className) {
  const td = el("td", className, text);
  td.dataset.label = label; // the column's name, shown beside the value on a narrow screen
  return td;
}

const PHASE_WORDS = {
  agent: "agent working",
  waiting_for_approval: "waiting for approval",
  verifying: "verifying",
  judging: "judging",
};

function roundDetails(number, entry) {
  const box = el("div", "round-details-body");
  const verdict = entry.verdict;
  if (verdict && Array.isArray(verdict.requirements) && verdict.requirements.length) {
    box.append(el("p", "field-name", "The judge's evidence"));
    const list = el("ul", "requirement-list");
    list.append(...requirementItems(verdict));
    box.append(list);
  } else if (verdict && verdict.missing) {
    box.append(el("p", "field-name", "The judge found missing"));
    const text = el("p");
    text.append(renderInline(verdict.missing));
    box.append(text);
  }
  const verify = entry.verify;
  if (verify) {
    const how = verify.timed_out ? "timed out" : `exit ${verify.exit_code}`;
    box.append(el("p", "field-name", `Verify: ${verify.command} (${how})`));
    const output = el("pre", "verify-output", verify.output_tail || "(no output)");
    output.tabIndex = 0;
    box.append(output);
  }
  const checkpoint = checkpointOf(number);
  if (checkpoint) {
    const summary = `Files this round changed: ${checkpoint.changed}`;
    box.append(diffDetails(`round-${number}`, checkpoint, null, `Round ${number}`, summary));
    box.append(rewindButton(checkpoint, `the end of round ${number}`));
  }
  return box;
}

function roundRows(goal) {
  const rows = [...state.rounds.entries()].sort((a, b) => a[0] - b[0]).map(([number, entry]) => {
    const round = entry.round;
    const row = el("tr", round.complete ? "round complete" : "round");
    row.dataset.round = String(round.iteration);
    let verdict = round.complete ? "complete" : "not yet";
    if (round.judge_error) verdict = "judge failed";
    row.append(el("th", null, String(round.iteration)));
    row.lastChild.scope = "row";
    row.append(cell("Verdict", verdict, round.complete ? "ok" : round.judge_error ? "bad" : ""));
    row.append(cell("Score", percent(round.score)));
    const exit = round.verify_exit_code;
    row.append(cell("Verify", exit === null || exit === undefined ? "–" : `exit ${exit}`, exit === 0 ? "ok" : exit ? "bad" : ""));
    row.append(cell("Cost", formatCost((round.agent_cost || 0) + (round.judge_cost || 0))));
    row.append(cell("Time", formatDuration(round.seconds)));
    const last = cell("Missing", null, "missing");
    last.append(el("span", "missing-text", round.judge_error || round.missing || "–"));
    const details = el("details", "round-details");
    details.dataset.key = `details-${number}`;
    details.append(el("summary", null, "Evidence, verify output and changes"));
    details.append(roundDetails(number, entry));
    if (state.openDetails.has(number)) details.open = true;
    details.addEventListener("toggle", () => {
      if (details.open) state.openDetails.add(number);
      else state.openDetails.delete(number);
    });
    last.append(details);
    row.append(last);
    return row;
  });
  if (goal && goal.active) {
    const row = el("tr", "round current");
    row.dataset.round = String(goal.iteration + 1);
    row.append(el("th", null, String(goal.iteration + 1)));
    row.lastChild.scope = "row";
    const waiting = state.status === "waiting_for_confirmation" ? "waiting for approval" : null;
    const what = waiting || PHASE_WORDS[goal.phase] || "agent working";
    const now = cell("Verdict", `in progress: ${what}`, "in-progress");
    now.colSpan = 6;
    row.append(now);
    rows.push(row);
  }
  return rows;
}

function render() {
  renderPhase();
  const goal = state.goal;
  $("goal-progress").hidden = !goal;
  clearInterval(state.timer);
  state.timer = 0;
  if (phase() || (goal && goal.active)) state.timer = setInterval(tick, 1000);
  if (!goal) return;
  replaceIfChanged($("goal-objective-text"), goal.objective || "", () => [renderInline(goal.objective || "")]);
  $("goal-budget").textContent = budgetText(goal);
  const notes = [];
  if (goal.reason) notes.push(`Reason: ${goal.reason}`);
  if (goal.error) notes.push(`Error: ${goal.error}`);
  $("goal-detail").textContent = notes.join(" · ");
  $("goal-detail").hidden = notes.length === 0;
  $("goal-rewound").hidden = !goal.rewound;
  $("goal-rewound").textContent = goal.rewound ? rewoundText(goal) : "";

  const verdict = goal.verdict;
  const reqs = verdict && Array.isArray(verdict.requirements) && verdict.requirements.length ? verdict : null;
  $("requirements").hidden = !reqs;
  if (reqs) {
    $("requirements-count").textContent = requirementsText(reqs);
    replaceIfChanged($("requirement-list"), JSON.stringify(reqs.requirements), () => requirementItems(reqs));
  }
  const missing = verdict && !verdict.complete && verdict.missing ? verdict.missing : "";
  $("goal-missing").hidden = !missing;
  replaceIfChanged($("goal-missing-text"), missing, () => [renderInline(missing)]);

  const busy = goal.active ? "A goal is running: stop it first." : state.status === "running" || state.status === "waiting_for_confirmation" ? "The agent is working: pause it first." : "";
  setRewindContext(busy, goal);
  const checkpoints = [...state.rounds.keys()].map((number) => (checkpointOf(number) || {}).id || "");
  const key = JSON.stringify([[...state.rounds.entries()], goal.active, goal.phase, goal.iteration, state.status === "waiting_for_confirmation", checkpoints, busy, goal.status, outcomesKey()]);
  if ($("round-rows").dataset.key !== key) {
    const rows = roundRows(goal);
    $("rounds").hidden = rows.length === 0;
    replaceIfChanged($("round-rows"), key, () => rows);
  }
  renderGoalChanges(busy, goal.status);
}

function renderGoalChanges(busy, goalStatus) {
  const span = goalSpan();
  $("goal-changes").hidden = !span;
  if (!span) return;
  const key = JSON.stringify([span.start.id, span.end.id, busy, goalStatus, outcomesKey()]);
  replaceIfChanged($("goal-changes-body"), key, () => [
    diffDetails("goal", span.end, span.start, "This goal", "Show every file this goal changed", "goal-diff"),
    rewindButton(span.start, "before this goal"),
  ]);
}

/** What a rewind after the goal's last status did to it, in words. */
function rewoundText(goal) {
  const r = goal.rewound;
  const counts = `${(r.restored || []).length} restored, ${(r.deleted || []).length} deleted`;
  const before = goal.status === "complete"
    ? "The goal was complete; its files were then"
    : `The goal ended ${goal.status}; its files were then`;
  return `${before} rewound to snapshot “${r.label}” (${counts}): they are no longer what the last round left and the judge saw.`;
}

function tick() {
  renderPhase();
  if (state.goal) $("goal-budget").textContent = budgetText(state.goal);
}

// What the agent changed: the workspace snapshots a goal takes (its start, each round's end),
// their diffs (read from the server when first opened, then kept), and rewinding the
// workspace to one, after a confirmation.

import { api } from "./api.js";
import { filesSummary, renderPatch } from "./diff.js";
import { $, el, setDisabled } from "./dom.js";

const state = {
  conversationId: null,
  byRound: new Map(), // goal round (0: the goal's start) -> checkpoint
  diffs: new Map(), // "base..target" -> CheckpointDiff
  open: new Set(), // keys of the diff boxes a person opened (kept open when rows are redrawn)
  busy: "", // why a rewind cannot happen now ("" when it can)
  goal: null, // the goal shown (what a rewind offers next depends on how it ended)
  outcomes: new Map(), // checkpoint id -> {text, ok, result}: a rewind's outcome, by its button
  onChange: () => {},
  nextStep: () => {}, // nextStep("restart" | "continue" | "resume"): what the page does next
  rewinding: null, // the checkpoint the dialog asks about
};

/** Forget everything (another conversation opens); `onChange` redraws what shows changes. */
export function resetChanges(conversationId, onChange) {
  Object.assign(state, {
    conversationId, byRound: new Map(), diffs: new Map(), open: new Set(), busy: "", goal: null,
    outcomes: new Map(), onChange,
  });
}

/** A `key="checkpoint"` event's value: a goal's start (round 0) begins a new goal's set. */
export function addCheckpoint(checkpoint) {
  if (checkpoint.goal_round === null || checkpoint.goal_round === undefined) return;
  if (checkpoint.goal_round === 0) state.byRound = new Map();
  state.byRound.set(checkpoint.goal_round, checkpoint);
  state.onChange();
}

/** Why a rewind cannot happen now ("" when it can: a goal or the agent is working), and the
 * goal shown (what a rewind then offers depends on how it ended). */
export function setRewindContext(reason, goal) {
  state.busy = reason;
  state.goal = goal;
}

/** What the shown rewind outcomes are (for redraws: a new outcome redraws its button). */
export function outcomesKey() {
  return JSON.stringify([...state.outcomes.entries()].map(([id, o]) => [id, o.ok, o.text]));
}

/** The checkpoint taken at the end of goal round `round` (0: the goal's start), or null. */
export function checkpointOf(round) {
  return state.byRound.get(round) || null;
}

/** The goal's start and its newest round checkpoint, or null before a round ended. */
export function goalSpan() {
  const start = state.byRound.get(0);
  const rounds = [...state.byRound.keys()].filter((round) => round > 0);
  if (!start || !rounds.length) return null;
  return { start, end: state.byRound.get(Math.max(...rounds)) };
}

async function loadDiff(target, base) {
  const key = `${base || ""}..${target}`;
  if (state.diffs.has(key)) return state.diffs.get(key);
  const id = state.conversationId;
  const query = base ? `?base=${encodeURIComponent(base)}` : "";
  const diff = await api("GET", `/api/conversations/${id}/checkpoints/${target}/diff${query}`);
  if (id === state.conversationId) state.diffs.set(key, diff);
  return diff;
}

function fill(body, summary, diff, label) {
  summary.textContent = `${label}: ${filesSummary(diff.files)}`;
  body.replaceChildren();
  if (!diff.files.length) {
    body.append(el("p", "muted small", "No file changed."));
    return;
  }
  const list = el("ul", "changed-files");
  for (const file of diff.files) {
    const item = el("li", `changed-file changed-${file.change}`, `${file.change}: ${file.path}`);
    list.append(item);
  }
  body.append(list, renderPatch(diff.patch, label));
  if (diff.truncated) body.append(el("p", "muted small", "The diff is cut here (OH_CHECKPOINT_MAX_DIFF_CHARS)."));
}

/**
 * A `<details>` showing the changes from checkpoint `base` to checkpoint `target` (base null:
 * the one before target), read when first opened; `summaryText` until then. `key` keeps it
 * open across redraws.
 */
export function diffDetails(key, target, base, label, summaryText, className = "round-diff") {
  const details = el("details", `diff-box ${className}`);
  const summary = el("summary", null, summaryText);
  const body = el("div", "diff-body");
  details.append(summary, body);
  details.dataset.key = key;
  const show = async () => {
    try {
      const diff = await loadDiff(target.id, base ? base.id : null);
      fill(body, summary, diff, label);
    } catch (err) {
      body.replaceChildren(el("p", "muted small", `Could not read the changes: ${err.message}`));
    }
  };
  details.addEventListener("toggle", () => {
    if (details.open) {
      state.open.add(key);
      show();
    } else {
      state.open.delete(key);
    }
  });
  if (state.open.has(key)) details.open = true; // its toggle event loads it again (cached)
  return details;
}

// What works after a rewind, by how the goal ended: [dialog sentence, button, next step].
const NEXT = {
  complete: [
    "The goal stays recorded as complete (a complete goal is not resumed): to work on it again from there, start it again.",
    "Start the goal again from here", "restart",
  ],
  capped: ["Then continue the goal with new limits to go on from there.", "Continue with new limits", "continue"],
  interrupted: ["Then resume the goal to go on from there.", "Resume the goal", "resume"],
};

function nextFor() {
  return (state.goal && !state.goal.active && NEXT[state.goal.status]) || null;
}

function button(text, className, onClick) {
  const node = el("button", className, text);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

function outcomeNode(checkpoint) {
  const outcome = state.outcomes.get(checkpoint.id);
  const box = el("div", `rewind-outcome${outcome.ok ? "" : " bad"}`);
  box.setAttribute("role", outcome.ok ? "status" : "alert");
  box.append(el("p", null, outcome.text));
  if (outcome.ok) {
    const buttons = el("div", "buttons");
    const next = nextFor();
    if (next) buttons.append(button(next[1], "small-button", () => state.nextStep(next[2])));
    if (outcome.result.before) {
      const undo = { id: outcome.result.before, label: "before the rewind" };
      buttons.append(button("Undo the rewind", "secondary small-button", () => rewind(undo, "how it was before the rewind", checkpoint)));
    }
    box.append(buttons);
  }
  return box;
}

/** The button that rewinds the workspace to `checkpoint` (after a confirmation), with the
 * outcome of a rewind asked here shown under it. */
export function rewindButton(checkpoint, what) {
  const box = el("div", "rewind-box");
  const node = button(`Rewind to ${what}`, "secondary small-button rewind", () => askRewind(checkpoint, what));
  node.id = `rewind-${checkpoint.id.slice(0, 12)}`;
  node.dataset.checkpoint = checkpoint.id;
  queueMicrotask(() => setDisabled(node, state.busy));
  box.append(node);
  if (state.outcomes.has(checkpoint.id)) box.append(outcomeNode(checkpoint));
  return box;
}

function askRewind(checkpoint, what) {
  state.rewinding = { checkpoint, what };
  const next = nextFor();
  $("rewind-text").textContent =
    `The workspace's files go back to how they were ${what} (snapshot “${checkpoint.label}”): files changed since are restored, files made since are deleted. Ignored files and files over the size limit are left alone. The current state is snapshot first, so this can be undone.${next ? ` ${next[0]}` : ""}`;
  const dialog = $("rewind-dialog");
  dialog.returnValue = "";
  dialog.showModal();
}

// `shownAt`: the checkpoint whose button shows the outcome (an undo shows it where it was asked).
async function rewind(checkpoint, what, shownAt = checkpoint) {
  const id = state.conversationId;
  let outcome;
  try {
    const result = await api("POST", `/api/conversations/${id}/checkpoints/${checkpoint.id}/rewind`);
    const next = nextFor();
    const text = `Workspace rewound to ${what}: ${result.restored.length} file(s) restored, ${result.deleted.length} deleted.${next ? ` ${next[0]}` : ""}`;
    outcome = { ok: true, text, result };
  } catch (err) {
    outcome = { ok: false, text: `Could not rewind: ${err.message}`, result: {} };
  }
  if (id !== state.conversationId) return;
  state.outcomes = new Map([[shownAt.id, outcome]]); // only the newest outcome stays
  state.onChange();
  const shown = document.querySelector(`[data-checkpoint="${CSS.escape(shownAt.id)}"]`);
  const note = shown && shown.parentElement.querySelector(".rewind-outcome");
  if (note) note.scrollIntoView({ block: "nearest" });
}

/** Wire the rewind confirmation (once, at start-up); `nextStep(kind)` does what a rewind's
 * outcome offers: "restart" a complete goal, "continue" a capped one, "resume" a stopped one. */
export function initChanges({ nextStep }) {
  state.nextStep = nextStep;
  const dialog = $("rewind-dialog");
  dialog.addEventListener("close", () => {
    const asked = state.rewinding;
    state.rewinding = null;
    if (dialog.returnValue === "rewind" && asked) rewind(asked.checkpoint, asked.what);
  });
}

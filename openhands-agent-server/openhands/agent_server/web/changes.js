// What the agent changed: the workspace snapshots a goal takes (its start, each round's end),
// their diffs (read from the server when first opened, then kept), and rewinding the
// workspace to one, after a confirmation.

import { api } from "./api.js";
import { filesSummary, renderPatch } from "./diff.js";
import { $, el, setDisabled } from "./dom.js";
import { notify } from "./notices.js";

const state = {
  conversationId: null,
  byRound: new Map(), // goal round (0: the goal's start) -> checkpoint
  diffs: new Map(), // "base..target" -> CheckpointDiff
  open: new Set(), // keys of the diff boxes a person opened (kept open when rows are redrawn)
  busy: "", // why a rewind cannot happen now ("" when it can)
  onChange: () => {},
  rewinding: null, // the checkpoint the dialog asks about
};

/** Forget everything (another conversation opens); `onChange` redraws what shows changes. */
export function resetChanges(conversationId, onChange) {
  Object.assign(state, {
    conversationId, byRound: new Map(), diffs: new Map(), open: new Set(), busy: "", onChange,
  });
}

/** A `key="checkpoint"` event's value: a goal's start (round 0) begins a new goal's set. */
export function addCheckpoint(checkpoint) {
  if (checkpoint.goal_round === null || checkpoint.goal_round === undefined) return;
  if (checkpoint.goal_round === 0) state.byRound = new Map();
  state.byRound.set(checkpoint.goal_round, checkpoint);
  state.onChange();
}

/** Why a rewind cannot happen now ("" when it can): a goal or the agent is working. */
export function setRewindBlocked(reason) {
  state.busy = reason;
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

/** The button that rewinds the workspace to `checkpoint` (after a confirmation). */
export function rewindButton(checkpoint, what) {
  const button = el("button", "secondary small-button rewind", `Rewind to ${what}`);
  button.type = "button";
  button.id = `rewind-${checkpoint.id.slice(0, 12)}`;
  button.dataset.checkpoint = checkpoint.id;
  button.addEventListener("click", () => askRewind(checkpoint, what));
  queueMicrotask(() => setDisabled(button, state.busy));
  return button;
}

function askRewind(checkpoint, what) {
  state.rewinding = { checkpoint, what };
  $("rewind-text").textContent =
    `The workspace's files go back to how they were ${what} (snapshot “${checkpoint.label}”): files changed since are restored, files made since are deleted. Ignored files and files over the size limit are left alone. The current state is snapshot first, so this can be undone. Resume the goal afterwards to continue from there.`;
  const dialog = $("rewind-dialog");
  dialog.returnValue = "";
  dialog.showModal();
}

async function rewind(checkpoint, what) {
  const id = state.conversationId;
  try {
    const result = await api("POST", `/api/conversations/${id}/checkpoints/${checkpoint.id}/rewind`);
    notify(
      `Workspace rewound to ${what}: ${result.restored.length} file(s) restored, ${result.deleted.length} deleted. Resume the goal to go on from there.`,
      "info",
    );
  } catch (err) {
    notify(`Could not rewind: ${err.message}`);
  }
}

/** Wire the rewind confirmation (once, at start-up). */
export function initChanges() {
  const dialog = $("rewind-dialog");
  dialog.addEventListener("close", () => {
    const asked = state.rewinding;
    state.rewinding = null;
    if (dialog.returnValue === "rewind" && asked) rewind(asked.checkpoint, asked.what);
  });
}

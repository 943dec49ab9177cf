// One status for a conversation, in words: the goal's while a goal runs (or when how it ended
// is the newest news), else the conversation's own. The header badge and the list use it, so
// the page never says "finished" beside a running goal.

const WORDS = {
  idle: "idle",
  running: "running",
  paused: "paused",
  waiting_for_confirmation: "waiting for approval",
  finished: "finished",
  error: "error",
  stuck: "stuck",
};

const TONES = {
  running: "run",
  finished: "ok",
  paused: "warn",
  waiting_for_confirmation: "warn",
  error: "bad",
  stuck: "bad",
  complete: "ok",
  capped: "warn",
  interrupted: "bad",
};

/** A conversation's execution status in words ("waiting for approval", not the raw name). */
export function executionWords(execution) {
  return WORDS[execution] || execution || "idle";
}

/**
 * The status to show: `{text, tone, key}`. `goal` is the latest goal status (or null);
 * `goalIsNewer` says it was recorded after the conversation's last status change (a goal's end
 * is older news than a plain run made after it).
 */
export function statusOf(execution, goal, goalIsNewer = true) {
  if (execution === "waiting_for_confirmation") {
    return { text: "waiting for approval", tone: "warn", key: "waiting" };
  }
  if (goal && goal.active) return { text: "goal running", tone: "run", key: "goal-running" };
  if (execution === "running") return { text: "running", tone: "run", key: "running" };
  if (goal && goalIsNewer) {
    return { text: `goal ${goal.status}`, tone: TONES[goal.status] || "idle", key: `goal-${goal.status}` };
  }
  return { text: executionWords(execution), tone: TONES[execution] || "idle", key: execution || "idle" };
}

// One cost figure for a goal. A goal's status records its cost when it is written; a Stop is
// recorded at once, but the agent's step running then (its LLM call) ends afterwards and costs
// more, so the stopped goal's status says less than the conversation's cost table. The table's
// numbers come from the `stats` events each run's end writes: the goal's real spend is the
// total at its run's end minus the total when it started, and that is what the page shows for
// an ended goal (never less than its status says). A plain run after the goal's end is not
// the goal's: from then on the status's own figure stands.

function total(metrics) {
  return Object.values(metrics || {}).reduce((sum, entry) => sum + (Number(entry.accumulated_cost) || 0), 0);
}

export class GoalCost {
  constructor() {
    this.lastTotal = 0; // the conversation's total cost at the newest `stats` event
    this.base = 0; // ... when the shown goal started
    this.active = false;
    this.endTotal = null; // ... at the first run end after the goal's end
    this.plainRun = false; // the agent ran on its own after the goal ended
  }

  /** A `stats` event's usage_to_metrics. */
  stats(metrics) {
    this.lastTotal = total(metrics);
    if (!this.active && !this.plainRun && this.endTotal !== null) this.endTotal = this.lastTotal;
  }

  /** A goal status (as recorded). */
  goal(value) {
    if (!value) return;
    if (value.active && value.iteration === 0 && value.status === "running" && !this.active) {
      this.base = this.lastTotal; // a new goal (a resumed one keeps counting from its start)
      this.plainRun = false;
    }
    if (!value.active && this.active) this.endTotal = this.lastTotal;
    if (value.active) this.endTotal = null;
    this.active = Boolean(value.active);
  }

  /** The conversation started running (a run after the goal's end is not the goal's). */
  running() {
    if (!this.active && this.endTotal !== null) this.plainRun = true;
  }

  /** The cost to show for goal status `value`. */
  cost(value) {
    if (!value || value.active || this.endTotal === null || this.plainRun) return value ? value.cost : 0;
    return Math.max(Number(value.cost) || 0, this.endTotal - this.base);
  }
}

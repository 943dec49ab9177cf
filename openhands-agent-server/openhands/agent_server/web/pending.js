// Which tool calls have no result yet: the tools running now, or the calls waiting for approval.

const RESULT_KINDS = new Set(["ObservationEvent", "UserRejectObservation", "AgentErrorEvent"]);

/** Follows a conversation's events and keeps the ActionEvents that no result answered yet. */
export class PendingActions {
  constructor() {
    this.actions = new Map(); // action event id -> {event, seq}, in log order
    this.seq = 0;
    this.lastResultSeq = 0;
  }

  /** Feed every event of the conversation, in log order. */
  observe(event) {
    this.seq += 1;
    if (event.kind === "ActionEvent") {
      this.actions.set(event.id, { event, seq: this.seq });
    } else if (RESULT_KINDS.has(event.kind)) {
      this.lastResultSeq = this.seq;
      for (const [id, entry] of this.actions) {
        // An AgentErrorEvent names the call, not the action event.
        if (id === event.action_id || entry.event.tool_call_id === event.tool_call_id) {
          this.actions.delete(id);
        }
      }
    } else if (event.kind === "ConversationErrorEvent") {
      this.actions.clear(); // the run died: its calls will never get a result
    }
  }

  /** Every call still without a result (tools running now), oldest first. */
  unanswered() {
    return [...this.actions.values()].map((entry) => entry.event);
  }

  /** The calls after the last result that have none: what waits for approval. */
  awaitingApproval() {
    return [...this.actions.values()]
      .filter((entry) => entry.seq > this.lastResultSeq)
      .map((entry) => entry.event);
  }
}

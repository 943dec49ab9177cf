// One list item per event, and the events list that folds the noisy status rows.
// State changes found in events are reported through `on`: on.status(value), on.goal(value),
// on.stats(usageToMetrics), on.checkpoint(value), on.rewind(value) and on.userText(text).

import { callArguments, callView } from "./calls.js";
import { el } from "./dom.js";
import { percent } from "./format.js";
import { renderMarkdown } from "./markdown.js";

/** The `sender` of the goal loop's own messages (objective, follow-ups, resume prompts). */
export const GOAL_SENDER = "goal";

export function textOf(content) {
  return (content || [])
    .map((part) => (part.type === "text" ? part.text : `[${part.type || "part"}]`))
    .join("\n");
}

function header(label, event) {
  const head = el("div", "event-head");
  head.append(el("span", "event-label", label));
  if (event.timestamp) {
    const time = el("time", "muted small", new Date(event.timestamp).toLocaleTimeString());
    time.dateTime = event.timestamp;
    head.append(time);
  }
  return head;
}

/** A <pre> for long output: it scrolls past its maximum height, so the keyboard can reach it. */
function scroller(className, text) {
  const pre = el("pre", className, text);
  pre.tabIndex = 0;
  return pre;
}

function collapsible(summaryText, bodyText, className) {
  const details = el("details", className);
  details.append(el("summary", null, summaryText));
  details.append(scroller(null, bodyText));
  return details;
}

function markdown(className, text) {
  const box = el("div", `markdown ${className}`);
  box.append(renderMarkdown(text));
  return box;
}

/** A goal status in a few words: "running · round 2/10 · judging · score 50%". */
export function goalSummary(goal) {
  if (!goal) return "none";
  const parts = [goal.status, `round ${Math.min(goal.iteration + (goal.active ? 1 : 0), goal.max_iterations)}/${goal.max_iterations}`];
  if (goal.phase) parts.push(goal.phase);
  if (goal.verdict) parts.push(`score ${percent(goal.verdict.score)}`);
  return parts.join(" · ");
}

/** The list item showing `event`; `on` receives the state changes it carries. */
export function renderEvent(event, on) {
  const item = el("li");
  let noisy = false;
  switch (event.kind) {
    case "SystemPromptEvent": {
      item.classList.add("system");
      const tools = (event.tools || []).map((t) => (t.function ? t.function.name : t.name));
      item.append(collapsible(`System prompt · tools: ${tools.join(", ") || "none"}`,
        (event.system_prompt && event.system_prompt.text) || ""));
      break;
    }
    case "MessageEvent": {
      const fromGoal = event.source === "user" && event.sender === GOAL_SENDER;
      const role = fromGoal ? "Goal loop" : event.source === "user" ? "You" : event.source === "hook" ? "Hook" : "Agent";
      const text = textOf(event.llm_message && event.llm_message.content);
      item.classList.add("message", fromGoal ? "from-goal" : `from-${event.source}`);
      item.append(header(role, event));
      item.append(markdown("message-text", text));
      if (event.source === "user" && text.trim()) on.userText(text.trim());
      break;
    }
    case "ActionEvent": {
      item.classList.add("action");
      item.dataset.tool = event.tool_name;
      item.append(header(`Tool call: ${event.tool_name}`, event));
      const thought = textOf(event.thought);
      if (thought) item.append(markdown("thought", thought));
      const args = callArguments(event);
      if (event.tool_name === "finish" && typeof args.message === "string") {
        item.append(markdown("finish-message", args.message));
      } else if (event.tool_name === "think" && typeof args.thought === "string") {
        item.append(markdown("thought", args.thought));
      } else {
        item.append(callView(event));
      }
      break;
    }
    case "ObservationEvent": {
      item.classList.add("observation");
      const observation = event.observation || {};
      const failed = Boolean(observation.is_error);
      if (failed) item.classList.add("error");
      const notes = (observation.notes || []).map((note) => `[${note}]`);
      const text = [textOf(observation.content), ...notes].filter(Boolean).join("\n");
      const first = text.split("\n")[0].slice(0, 100);
      const exit = Number.isInteger(observation.exit_code) ? ` (exit ${observation.exit_code})` : "";
      const label = `Result of ${event.tool_name}${failed ? " (error)" : exit}: ${first}`;
      item.append(collapsible(label, text));
      break;
    }
    case "AgentErrorEvent":
      item.classList.add("error");
      item.append(header(`Tool error: ${event.tool_name}`, event));
      item.append(scroller(null, event.error));
      break;
    case "UserRejectObservation":
      item.classList.add("error", "rejected");
      item.append(header(`Rejected: ${event.tool_name}`, event));
      item.append(el("div", null, event.rejection_reason));
      break;
    case "ConversationErrorEvent":
      item.classList.add("error");
      item.append(header(`Error: ${event.code}`, event));
      item.append(scroller(null, event.detail));
      break;
    case "PauseEvent":
      item.classList.add("note");
      item.append(header("Pause requested", event));
      break;
    case "ConversationStateUpdateEvent": {
      noisy = true;
      item.classList.add("note");
      let label = `${event.key} updated`;
      if (event.key === "execution_status") {
        on.status(event.value);
        label = `Status: ${event.value}`;
      } else if (event.key === "goal") {
        on.goal(event.value);
        item.classList.add("goal-note");
        label = `Goal: ${goalSummary(event.value)}`;
      } else if (event.key === "stats" && event.value && event.value.usage_to_metrics) {
        on.stats(event.value.usage_to_metrics);
        label = "Usage updated";
      } else if (event.key === "checkpoint" && event.value) {
        on.checkpoint(event.value);
        const changed = event.value.changed || 0;
        label = `Snapshot “${event.value.label}”: ${changed} file${changed === 1 ? "" : "s"} changed`;
        noisy = false;
        item.classList.add("checkpoint-note");
      } else if (event.key === "rewind" && event.value) {
        on.rewind(event.value);
        const restored = (event.value.restored || []).length;
        const deleted = (event.value.deleted || []).length;
        label = `Workspace rewound to “${event.value.label}” (${restored} restored, ${deleted} deleted)`;
        noisy = false;
        item.classList.add("rewind-note");
      }
      item.dataset.label = label;
      item.append(header(label, event));
      break;
    }
    default:
      item.classList.add("note");
      item.append(collapsible(event.kind || "event", JSON.stringify(event, null, 2)));
  }
  item.classList.add("event");
  item.dataset.kind = event.kind;
  item.dataset.id = event.id;
  return { node: item, noisy };
}

/**
 * Append an event's item to the events list. Status rows in a row are folded into one
 * expandable group ("4 status updates · Status: finished"), so they do not bury the messages.
 */
export function appendEvent(list, node, noisy) {
  if (!noisy) {
    list.append(node);
    return;
  }
  let group = list.lastElementChild;
  if (!group || !group.classList.contains("fold")) {
    group = el("li", "fold");
    const details = el("details");
    details.append(el("summary"), el("ol", "fold-items"));
    group.append(details);
    list.append(group);
  }
  const items = group.querySelector(".fold-items");
  items.append(node);
  const count = items.children.length;
  group.querySelector("summary").textContent =
    `${count} status update${count === 1 ? "" : "s"} · ${node.dataset.label}`;
}

// One list item per event. State changes found in events are reported through `on`:
// on.status(value), on.goal(value) and on.userText(text).

import { el } from "./dom.js";
import { goalSummary } from "./goal.js";

export function textOf(content) {
  return (content || [])
    .map((part) => (part.type === "text" ? part.text : `[${part.type || "part"}]`))
    .join("\n");
}

function header(label, event) {
  const head = el("div", "event-head");
  head.append(el("span", "event-label", label));
  if (event.timestamp) {
    head.append(el("time", "muted small", new Date(event.timestamp).toLocaleTimeString()));
  }
  return head;
}

function collapsible(summaryText, bodyText, className) {
  const details = el("details", className);
  details.append(el("summary", null, summaryText));
  details.append(el("pre", null, bodyText));
  return details;
}

/** The list item showing `event`; `on` receives the state changes it carries. */
export function renderEvent(event, on) {
  const item = el("li");
  switch (event.kind) {
    case "SystemPromptEvent": {
      item.classList.add("system");
      const tools = (event.tools || []).map((t) => (t.function ? t.function.name : t.name));
      item.append(collapsible(`System prompt · tools: ${tools.join(", ") || "none"}`,
        (event.system_prompt && event.system_prompt.text) || ""));
      break;
    }
    case "MessageEvent": {
      const role = event.source === "user" ? "You" : event.source === "hook" ? "Hook" : "Agent";
      const text = textOf(event.llm_message && event.llm_message.content);
      item.classList.add("message", `from-${event.source}`);
      item.append(header(role, event));
      item.append(el("div", "message-text", text));
      if (event.source === "user" && text.trim()) on.userText(text.trim());
      break;
    }
    case "ActionEvent": {
      item.classList.add("action");
      item.append(header(`Tool call: ${event.tool_name}`, event));
      const thought = textOf(event.thought);
      if (thought) item.append(el("div", "thought", thought));
      let args = event.action;
      if (!args && event.tool_call) {
        try { args = JSON.parse(event.tool_call.arguments || "{}"); } catch { args = event.tool_call.arguments; }
      }
      item.append(el("pre", "arguments", typeof args === "string" ? args : JSON.stringify(args, null, 2)));
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
      item.append(collapsible(`Result of ${event.tool_name}${failed ? " (error)" : ""}: ${first}`, text));
      break;
    }
    case "AgentErrorEvent":
      item.classList.add("error");
      item.append(header(`Tool error: ${event.tool_name}`, event));
      item.append(el("pre", null, event.error));
      break;
    case "UserRejectObservation":
      item.classList.add("error");
      item.append(header(`Rejected: ${event.tool_name}`, event));
      item.append(el("div", null, event.rejection_reason));
      break;
    case "ConversationErrorEvent":
      item.classList.add("error");
      item.append(header(`Error: ${event.code}`, event));
      item.append(el("pre", null, event.detail));
      break;
    case "PauseEvent":
      item.classList.add("note");
      item.append(header("Pause requested", event));
      break;
    case "ConversationStateUpdateEvent":
      if (event.key === "execution_status") {
        on.status(event.value);
        item.classList.add("note");
        item.append(header(`Status: ${event.value}`, event));
      } else if (event.key === "goal") {
        on.goal(event.value);
        item.classList.add("note", "goal-note");
        item.append(header(`Goal: ${goalSummary(event.value)}`, event));
      } else {
        item.classList.add("note");
        item.append(header(`${event.key} updated`, event));
      }
      break;
    default:
      item.classList.add("note");
      item.append(collapsible(event.kind || "event", JSON.stringify(event, null, 2)));
  }
  item.classList.add("event");
  item.dataset.kind = event.kind;
  item.dataset.id = event.id;
  return item;
}

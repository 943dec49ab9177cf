// A tool call as a person reads it: a terminal command as a command, a file edit as the
// change it makes, any other call as its non-empty arguments. Used by the events list and
// the approval card.

import { renderEdit } from "./diff.js";
import { el } from "./dom.js";

/** The call's arguments: its validated action, else the raw JSON the model sent. */
export function callArguments(event) {
  if (event.action) {
    const { kind, ...args } = event.action; // the action's class name is not an argument
    return args;
  }
  if (!event.tool_call) return {};
  try {
    const parsed = JSON.parse(event.tool_call.arguments || "{}");
    return parsed && typeof parsed === "object" ? parsed : { arguments: String(parsed) };
  } catch {
    return { arguments: event.tool_call.arguments };
  }
}

function empty(value) {
  return value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0)
    || (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);
}

function command(args) {
  const pre = el("pre", "command");
  pre.tabIndex = 0;
  pre.append(el("span", "prompt", args.is_input ? "input> " : "$ "), String(args.command || ""));
  const box = el("div", "call");
  box.append(pre);
  if (args.timeout) box.append(el("p", "muted small", `timeout ${args.timeout} s`));
  return box;
}

function fileEdit(args) {
  const box = el("div", "call");
  const path = String(args.path || "");
  const what = {
    create: `create ${path}`,
    str_replace: `edit ${path}`,
    insert: `insert into ${path} after line ${args.insert_line}`,
    view: `view ${path}${Array.isArray(args.view_range) ? ` (lines ${args.view_range.join("–")})` : ""}`,
    undo_edit: `undo the last edit of ${path}`,
  }[args.command] || `${args.command || "?"} ${path}`;
  box.append(el("p", "call-what", what));
  if (args.command === "create") box.append(renderEdit("", args.file_text || "", `The new file ${path}`));
  if (args.command === "str_replace") box.append(renderEdit(args.old_str || "", args.new_str || "", `The edit of ${path}`));
  if (args.command === "insert") box.append(renderEdit("", args.new_str || "", `The lines inserted into ${path}`));
  return box;
}

function fields(args) {
  const list = el("dl", "call-args");
  for (const [name, value] of Object.entries(args)) {
    if (empty(value)) continue;
    list.append(el("dt", null, name));
    const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
    const dd = el("dd");
    if (text.includes("\n") || text.length > 120) {
      const pre = el("pre", null, text);
      pre.tabIndex = 0;
      dd.append(pre);
    } else {
      dd.textContent = text;
    }
    list.append(dd);
  }
  if (!list.children.length) list.append(el("dt", "muted", "no arguments"));
  return list;
}

/** The readable form of an ActionEvent's call (not finish / think: the events list renders
 * their text as Markdown). */
export function callView(event) {
  const args = callArguments(event);
  if (typeof args.command === "string" && ["terminal", "bash", "execute_bash"].includes(event.tool_name)) {
    return command(args);
  }
  if (event.tool_name === "file_editor" || event.tool_name === "planning_file_editor") return fileEdit(args);
  return fields(args);
}

/** A standing approval rule in words. */
export function ruleText(rule) {
  return rule.command_prefix ? `${rule.tool} commands starting with “${rule.command_prefix}”` : `every ${rule.tool} call`;
}

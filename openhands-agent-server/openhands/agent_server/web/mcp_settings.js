// The MCP servers tab: the stored servers (`agent_settings.mcp_config` of /api/settings), added
// and removed with PATCH /api/settings (a `null` removes one), tested with the reference's
// POST /api/mcp/test. Environment and header values are sealed on the server: only their names
// come back, and are shown as names.

import { api } from "./api.js";
import { $, el, setDisabled, showResult } from "./dom.js";

const state = { onChange: () => {} };

function describe(server) {
  if (server.url) return `${server.transport || "http"} ${server.url}`;
  return [server.command, ...(server.args || [])].join(" ");
}

function secretNames(server) {
  return [...Object.keys(server.env || {}), ...Object.keys(server.headers || {})];
}

function button(text, label, className, onClick) {
  const node = el("button", className, text);
  node.type = "button";
  node.setAttribute("aria-label", label);
  node.addEventListener("click", onClick);
  return node;
}

async function remove(name) {
  const result = $("mcp-result");
  try {
    await api("PATCH", "/api/settings", { agent_settings_diff: { mcp_config: { [name]: null } } });
    showResult(result, `MCP server ${name} removed.`, true);
    await load();
    state.onChange();
  } catch (err) {
    showResult(result, err.message, false);
  }
}

async function load() {
  const settings = await api("GET", "/api/settings");
  const servers = (settings.agent_settings && settings.agent_settings.mcp_config) || {};
  const names = Object.keys(servers).sort();
  $("mcp-list").replaceChildren(...names.map((name) => {
    const server = servers[name];
    const item = el("li", "item");
    item.dataset.name = name;
    const text = el("div", "item-text");
    text.append(el("code", "item-name", name), el("code", "muted small", describe(server)));
    const sealed = secretNames(server);
    if (sealed.length) text.append(el("span", "muted small", `sealed: ${sealed.join(", ")}`));
    item.append(text, button("Remove", `Remove MCP server ${name}`, "danger small-button", () => remove(name)));
    return item;
  }));
  $("mcp-empty").hidden = names.length > 0;
}

/** `NAME=value` (or `Name: value`) lines as an object; throws naming a bad line. */
function pairs(text, separator, what) {
  const found = {};
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf(separator);
    if (at < 1) throw new Error(`${what}: "${line}" is not ${separator === "=" ? "NAME=value" : "Name: value"}.`);
    found[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return found;
}

/** The MCPServer the form describes; throws an Error naming a missing or bad field. */
function serverOf(form) {
  if (form.kind.value === "url") {
    const url = form.url.value.trim();
    if (!url) throw new Error("URL is needed for a server reached at a URL.");
    const server = { url };
    const headers = pairs(form.headers.value, ":", "Headers");
    if (Object.keys(headers).length) server.headers = headers;
    return server;
  }
  const command = form.command.value.trim();
  if (!command) throw new Error("Command is needed for a server that runs as a command.");
  const server = { command };
  const args = form.args.value.split("\n").map((a) => a.trim()).filter(Boolean);
  if (args.length) server.args = args;
  const env = pairs(form.env.value, "=", "Environment");
  if (Object.keys(env).length) server.env = env;
  return server;
}

async function save(event) {
  event.preventDefault();
  const form = event.target;
  const result = $("mcp-result");
  const name = form.name.value.trim();
  let server;
  try {
    server = serverOf(form);
  } catch (err) {
    showResult(result, err.message, false);
    return;
  }
  setDisabled($("mcp-save"), "Saving…");
  try {
    await api("PATCH", "/api/settings", { agent_settings_diff: { mcp_config: { [name]: server } } });
    form.reset();
    showKind();
    showResult(result, `MCP server ${name} saved: new conversations get its tools.`, true);
    await load();
    state.onChange();
  } catch (err) {
    showResult(result, `Not saved: ${err.message}`, false);
  } finally {
    setDisabled($("mcp-save"), "");
  }
}

async function test() {
  const form = $("mcp-form");
  const result = $("mcp-result");
  let server;
  try {
    server = serverOf(form);
  } catch (err) {
    showResult(result, err.message, false);
    return;
  }
  showResult(result, "Connecting…", true);
  setDisabled($("mcp-test"), "Testing…");
  try {
    const answer = await api("POST", "/api/mcp/test", { name: form.name.value.trim() || "test-server", server });
    if (answer.ok) showResult(result, `It answers: ${answer.tools.length} tool(s): ${answer.tools.join(", ") || "none"}.`, true);
    else showResult(result, `It does not answer (${answer.error_kind}): ${answer.error}`, false);
  } catch (err) {
    const why = err.status === 404 ? "this server cannot test MCP servers (no /api/mcp/test)" : err.message;
    showResult(result, `Not tested: ${why}.`, false);
  } finally {
    setDisabled($("mcp-test"), "");
  }
}

function showKind() {
  const kind = $("mcp-kind").value;
  for (const field of $("mcp-form").querySelectorAll("[data-kind]")) field.hidden = field.dataset.kind !== kind;
}

/** Show the tab; `onChange` runs after a server was added or removed. */
export async function showMcp(onChange) {
  if (!state.wired) {
    state.wired = true;
    $("mcp-form").addEventListener("submit", save);
    $("mcp-test").addEventListener("click", test);
    $("mcp-kind").addEventListener("change", showKind);
  }
  state.onChange = onChange;
  await load();
}

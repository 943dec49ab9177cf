// The skills and plugins tabs: installed extensions on the reference server's routes
// (/api/skills/installed, /api/plugins/installed: list, enable or disable, update, uninstall;
// POST .../install from a folder on the server, a git URL or github:owner/repo/path). A
// server without those routes (404) is said so in the tab.

import { api } from "./api.js";
import { $, el, setDisabled, showResult } from "./dom.js";

const KINDS = {
  skills: { one: "skill", list: "skills", path: "/api/skills" },
  plugins: { one: "plugin", list: "plugins", path: "/api/plugins" },
};
const wired = new Set();

function button(text, label, className, onClick) {
  const node = el("button", className, text);
  node.type = "button";
  node.setAttribute("aria-label", label);
  node.addEventListener("click", onClick);
  return node;
}

async function act(kind, work, done) {
  const result = $(`${kind}-result`);
  try {
    await work();
    showResult(result, done, true);
    await load(kind);
  } catch (err) {
    showResult(result, err.message, false);
  }
}

function item(kind, entry) {
  const { one, path } = KINDS[kind];
  const url = `${path}/installed/${encodeURIComponent(entry.name)}`;
  const node = el("li", "item");
  node.dataset.name = entry.name;
  const text = el("div", "item-text");
  text.append(el("code", "item-name", entry.name));
  text.append(el("span", `badge ${entry.enabled ? "tone-ok" : ""}`, entry.enabled ? "enabled" : "disabled"));
  if (entry.description) text.append(el("span", "muted small", entry.description));
  text.append(el("span", "muted small", `from ${entry.source}${entry.version ? ` · ${entry.version}` : ""}`));
  const actions = el("div", "buttons");
  const toggle = entry.enabled ? "Disable" : "Enable";
  actions.append(
    button(toggle, `${toggle} ${one} ${entry.name}`, "secondary small-button", () =>
      act(kind, () => api("PATCH", url, { enabled: !entry.enabled }), `${entry.name} ${entry.enabled ? "disabled" : "enabled"}.`)),
    button("Update", `Update ${one} ${entry.name} from its source`, "secondary small-button", () =>
      act(kind, () => api("POST", `${url}/refresh`), `${entry.name} updated from ${entry.source}.`)),
    button("Uninstall", `Uninstall ${one} ${entry.name}`, "danger small-button", () =>
      act(kind, () => api("DELETE", url), `${entry.name} uninstalled.`)),
  );
  node.append(text, actions);
  return node;
}

async function load(kind) {
  const { list, path, one } = KINDS[kind];
  const empty = $(`${kind}-empty`);
  let answer;
  try {
    answer = await api("GET", `${path}/installed`);
  } catch (err) {
    $(`${kind}-list`).replaceChildren();
    empty.hidden = false;
    empty.textContent = err.status === 404
      ? `This server does not manage installed ${list} (no ${path}/installed); give a conversation's agent a ${one} folder instead.`
      : `Could not read the installed ${list}: ${err.message}`;
    $(`${kind}-form`).hidden = err.status === 404;
    return;
  }
  const entries = answer[list] || [];
  $(`${kind}-list`).replaceChildren(...entries.map((entry) => item(kind, entry)));
  empty.textContent = `No ${one} installed.`;
  empty.hidden = entries.length > 0;
  $(`${kind}-form`).hidden = false;
}

async function install(kind, event) {
  event.preventDefault();
  const form = event.target;
  const body = { source: form.source.value.trim() };
  if (form.ref.value.trim()) body.ref = form.ref.value.trim();
  const buttonNode = $(`${kind}-install`);
  setDisabled(buttonNode, "Installing…");
  await act(kind, async () => {
    const installed = await api("POST", `${KINDS[kind].path}/install`, body);
    form.reset();
    return installed;
  }, `Installed from ${body.source}.`);
  setDisabled(buttonNode, "");
}

/** Show the `kind` tab ("skills" or "plugins"). */
export async function showExtensions(kind) {
  if (!wired.has(kind)) {
    wired.add(kind);
    $(`${kind}-form`).addEventListener("submit", (event) => install(kind, event));
  }
  await load(kind);
}

/** The enabled installed plugins as a create request's `plugins` ([] when none or no route). */
export async function enabledPlugins() {
  try {
    const answer = await api("GET", "/api/plugins/installed");
    return (answer.plugins || []).filter((p) => p.enabled).map((p) => ({ source: p.install_path }));
  } catch {
    return [];
  }
}

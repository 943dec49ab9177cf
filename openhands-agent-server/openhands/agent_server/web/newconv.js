// The new-conversation form: which LLM (the stored default, a stored profile, or one typed
// here, prefilled from the server's LLM_MODEL / LLM_BASE_URL), which stored secrets the agent's
// commands get, and the stored MCP servers and enabled plugins its agent gets. The model is
// checked first (POST /api/llm/check, the command line's preflight): a wrong URL, key or model
// is named at once, with the fix, instead of after a run's retries.

import { api, sessionKey } from "./api.js";
import { $, el, setDisabled, showResult } from "./dom.js";
import { enabledPlugins } from "./extensions.js";
import { notify } from "./notices.js";
import { checkModel, llmOf } from "./settings.js";

const state = {
  defaultLlm: null, // the stored settings' LLM (no key), or null
  mcp: {}, // stored MCP servers by name (sealed values as names only)
  unchecked: new Set(), // secrets the person unticked (kept unticked across reloads)
  onCreated: async () => {},
  loads: 0, // how many reads were started: an older read answering late is dropped
};

function option(value, text) {
  const node = el("option", null, text);
  node.value = value;
  return node;
}

async function optional(path) {
  try {
    return await api("GET", path);
  } catch {
    return null; // a missing session key is reported by the conversation list
  }
}

/** Read the stored default LLM, profiles, secrets and MCP servers into the form. */
export async function loadChoices() {
  state.loads += 1;
  const load = state.loads;
  const [info, settings, profiles, secrets] = await Promise.all(
    ["/server_info", "/api/settings", "/api/profiles", "/api/settings/secrets"].map(optional),
  );
  if (load !== state.loads) return;
  const form = $("create-form");
  const defaults = (info && info.llm_defaults) || {};
  if (defaults.model && !form.model.value) form.model.value = defaults.model;
  if (defaults.base_url && !form.base_url.value) form.base_url.value = defaults.base_url;
  form.api_key.placeholder = defaults.api_key_set ? "the server's LLM_API_KEY" : "";

  const agentSettings = (settings && settings.agent_settings) || {};
  state.defaultLlm = agentSettings.llm && agentSettings.llm.model ? agentSettings.llm : null;
  state.mcp = agentSettings.mcp_config || {};
  const select = $("llm-source");
  const before = select.dataset.chosen ? select.value : null;
  const options = [];
  if (state.defaultLlm) options.push(option("default", `the default: ${state.defaultLlm.model}`));
  for (const profile of (profiles && profiles.profiles) || []) {
    options.push(option(`profile:${profile.name}`, `profile ${profile.name}: ${profile.model || "?"}`));
  }
  options.push(option("typed", "a model I enter below"));
  select.replaceChildren(...options);
  const values = options.map((node) => node.value);
  select.value = before && values.includes(before) ? before : values[0];
  showSource();

  const names = ((secrets && secrets.secrets) || []).map((s) => s.name);
  $("create-secrets").hidden = names.length === 0;
  $("create-secret-boxes").replaceChildren(...names.map((name) => {
    const label = el("label", "check");
    const box = el("input");
    box.type = "checkbox";
    box.name = "secret";
    box.value = name;
    box.checked = !state.unchecked.has(name);
    box.addEventListener("change", () => (box.checked ? state.unchecked.delete(name) : state.unchecked.add(name)));
    label.append(box, " ", el("code", null, name));
    return label;
  }));
  const servers = Object.keys(state.mcp).sort();
  $("create-extras").hidden = servers.length === 0;
  $("create-extras").textContent = servers.length ? `The agent also gets the MCP servers ${servers.join(", ")} (Settings).` : "";
}

function showSource() {
  const typed = $("llm-source").value === "typed";
  $("typed-llm").hidden = !typed;
  $("model").required = typed;
}

// A stored MCP server as a request may carry it: its sealed values are not known here.
function withoutSealed(server) {
  const copy = { ...server };
  for (const field of ["env", "headers"]) {
    const known = Object.entries(copy[field] || {}).filter(([, value]) => value !== null);
    if (known.length) copy[field] = Object.fromEntries(known);
    else delete copy[field];
  }
  return copy;
}

/** The LLM part of the request and the check's body, from the chosen source. */
function llmChoice(form) {
  const source = form.llm_source.value;
  if (source.startsWith("profile:")) {
    const name = source.slice("profile:".length);
    return { request: { llm_profile: name }, agent: {}, check: { llm_profile: name } };
  }
  const llm = source === "default"
    ? { model: state.defaultLlm.model, ...(state.defaultLlm.base_url ? { base_url: state.defaultLlm.base_url } : {}) }
    : llmOf(form);
  return { request: {}, agent: { llm: { ...llm, usage_id: "agent" } }, check: { llm } };
}

async function request(form) {
  const choice = llmChoice(form);
  const tools = [...form.querySelectorAll("input[name=tools]:checked")].map((b) => ({ name: b.value }));
  const agent = { kind: "Agent", ...choice.agent, tools };
  const servers = Object.entries(state.mcp);
  if (servers.length) agent.mcp_config = Object.fromEntries(servers.map(([name, s]) => [name, withoutSealed(s)]));
  const body = { ...choice.request, agent };
  if (form.working_dir.value.trim()) {
    body.workspace = { kind: "LocalWorkspace", working_dir: form.working_dir.value.trim() };
  }
  if (form.approval.value === "always") body.confirmation_policy = { kind: "AlwaysConfirm" };
  if (form.approval.value === "risky") {
    body.confirmation_policy = { kind: "ConfirmRisky", threshold: "HIGH" };
    body.security_analyzer = { kind: "LLMSecurityAnalyzer" };
  }
  const key = sessionKey();
  const chosen = [...form.querySelectorAll("input[name=secret]:checked")].map((b) => b.value);
  if (chosen.length) {
    body.secrets = Object.fromEntries(chosen.map((name) => [name, {
      kind: "LookupSecret",
      url: `${location.origin}/api/settings/secrets/${name}`,
      ...(key ? { headers: { "X-Session-API-Key": key } } : {}),
    }]));
  }
  const plugins = await enabledPlugins();
  if (plugins.length) body.plugins = plugins;
  return { body, check: choice.check };
}

async function create(skipCheck) {
  const form = $("create-form");
  const result = $("create-check");
  const button = $("create");
  $("create-anyway").hidden = true;
  setDisabled(button, "Creating the conversation…");
  try {
    const { body, check } = await request(form);
    if (!skipCheck) {
      showResult(result, "Checking the model…", true);
      const answer = await checkModel(check);
      if (!answer.valid) {
        // A stored LLM is fixed in the settings, not in this form.
        const source = form.llm_source.value;
        const where = source === "default" ? "The default LLM (Settings): "
          : source.startsWith("profile:") ? `Profile ${source.slice("profile:".length)} (Settings): ` : "";
        showResult(result, where + answer.error.message, false);
        $("create-anyway").hidden = false;
        return;
      }
    }
    showResult(result, "", true);
    const info = await api("POST", "/api/conversations", body);
    notify("Conversation created.", "info");
    await state.onCreated(info);
  } catch (err) {
    showResult(result, `Could not create the conversation: ${err.message}`, false);
  } finally {
    setDisabled(button, "");
  }
}

/** Wire the form (once); `onCreated(info)` opens the new conversation. */
export function initNewConversation({ onCreated }) {
  state.onCreated = onCreated;
  const select = $("llm-source");
  select.addEventListener("change", () => {
    select.dataset.chosen = "true";
    showSource();
  });
  $("create-form").addEventListener("submit", (event) => {
    event.preventDefault();
    create(false);
  });
  $("create-anyway").addEventListener("click", () => create(true));
}

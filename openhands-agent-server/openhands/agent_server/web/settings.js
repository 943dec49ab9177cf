// The settings view (#/settings/<tab>): the default LLM and the LLM profiles, and the stored
// secrets, on the server's /api/settings, /api/profiles and /api/settings/secrets. No key or
// secret value is ever shown: the server answers names and "a key is stored" only, and a
// key field left empty keeps the stored key. The MCP, skills and plugins tabs are drawn by
// their own modules; `onChange` tells the new-conversation form to read the stores again.

import { api } from "./api.js";
import { $, el, setDisabled, showResult } from "./dom.js";
import { showExtensions } from "./extensions.js";
import { showMcp } from "./mcp_settings.js";
import { notify } from "./notices.js";

export const TABS = ["llm", "secrets", "mcp", "skills", "plugins"];

const state = { onChange: () => {}, tab: "llm" };

/** The LLM a model form describes ({model, base_url?, api_key?}); blank fields are left out. */
export function llmOf(form) {
  const llm = { model: form.model.value.trim() };
  if (form.base_url.value.trim()) llm.base_url = form.base_url.value.trim();
  if (form.api_key.value) llm.api_key = form.api_key.value;
  return llm;
}

/** Ask the server whether `body` ({llm} or {llm_profile}) can work: {valid, error}. A server
 * without the check (404) is taken as "not checked" (valid). */
export async function checkModel(body) {
  try {
    return await api("POST", "/api/llm/check", body);
  } catch (err) {
    if (err.status === 404) return { valid: true, unchecked: true };
    throw err;
  }
}

function checkText(answer) {
  if (answer.unchecked) return "This server cannot check models.";
  return answer.valid ? "The model's server answers, takes the key and serves the model." : answer.error.message;
}

// -- the default LLM ----------------------------------------------------------------------------

async function loadDefaultLlm() {
  const settings = await api("GET", "/api/settings");
  const llm = (settings.agent_settings && settings.agent_settings.llm) || null;
  const form = $("default-llm-form");
  if (!form.dataset.edited) { // what a person typed meanwhile is kept
    form.model.value = llm ? llm.model || "" : "";
    form.base_url.value = llm ? llm.base_url || "" : "";
    form.api_key.value = "";
  }
  form.api_key.placeholder = settings.llm_api_key_is_set ? "a key is stored: leave empty to keep it" : "none stored";
  $("default-forget-key-label").hidden = !settings.llm_api_key_is_set;
  $("default-forget-key").checked = false;
  return settings;
}

async function saveDefaultLlm(event) {
  event.preventDefault();
  const form = event.target;
  const llm = llmOf(form);
  llm.base_url = llm.base_url || null; // a cleared field removes the stored one
  if (form.forget_key.checked) llm.api_key = null;
  const result = $("default-llm-result");
  setDisabled($("default-save"), "Saving…");
  try {
    await api("PATCH", "/api/settings", { agent_settings_diff: { llm } });
    delete form.dataset.edited;
    await loadDefaultLlm();
    showResult(result, "Saved. Checking the model…", true);
    const answer = await checkModel({ llm: { model: llm.model, base_url: llm.base_url || undefined } });
    showResult(result, answer.valid ? `Saved. ${checkText(answer)}` : `Saved, but: ${checkText(answer)}`, answer.valid);
    state.onChange();
  } catch (err) {
    showResult(result, `Not saved: ${err.message}`, false);
  } finally {
    setDisabled($("default-save"), "");
  }
}

async function checkDefaultLlm() {
  const form = $("default-llm-form");
  const result = $("default-llm-result");
  if (!form.model.value.trim()) {
    showResult(result, "Enter a model first.", false);
    return;
  }
  showResult(result, "Checking…", true);
  try {
    const answer = await checkModel({ llm: llmOf(form) });
    showResult(result, checkText(answer), answer.valid);
  } catch (err) {
    showResult(result, err.message, false);
  }
}

// -- profiles -----------------------------------------------------------------------------------

function smallButton(text, label, onClick, className = "secondary small-button") {
  const button = el("button", className, text);
  button.type = "button";
  button.setAttribute("aria-label", label);
  button.addEventListener("click", onClick);
  return button;
}

function cell(label, text, className) {
  const td = el("td", className, text);
  td.dataset.label = label; // the column's name, shown beside the value on a narrow screen
  return td;
}

function profileRow(profile, active) {
  const row = el("tr");
  row.dataset.name = profile.name;
  const name = el("th", null, profile.name);
  name.scope = "row";
  if (profile.name === active) name.append(" ", el("span", "badge tone-ok", "default"));
  row.append(name, cell("Model", profile.model || "", "mono"), cell("Base URL", profile.base_url || "–", "mono"));
  row.append(cell("Key", profile.api_key_set ? "stored" : "none"));
  const actions = el("td", "row-actions");
  const result = $("profile-result");
  actions.append(
    smallButton("Check", `Check profile ${profile.name}`, async () => {
      showResult(result, `Checking ${profile.name}…`, true);
      try {
        const answer = await checkModel({ llm_profile: profile.name });
        showResult(result, `${profile.name}: ${checkText(answer)}`, answer.valid);
      } catch (err) {
        showResult(result, err.message, false);
      }
    }),
    smallButton("Make default", `Make ${profile.name} the default LLM`, async () => {
      try {
        await api("POST", `/api/profiles/${encodeURIComponent(profile.name)}/activate`);
        showResult(result, `${profile.name} is now the default LLM.`, true);
        await loadLlmTab();
        state.onChange();
      } catch (err) {
        showResult(result, err.message, false);
      }
    }),
    smallButton("Delete", `Delete profile ${profile.name}`, async () => {
      try {
        await api("DELETE", `/api/profiles/${encodeURIComponent(profile.name)}`);
        showResult(result, `Profile ${profile.name} deleted.`, true);
        await loadLlmTab();
        state.onChange();
      } catch (err) {
        showResult(result, err.message, false);
      }
    }, "danger small-button"),
  );
  row.append(actions);
  return row;
}

async function loadProfiles() {
  const listed = await api("GET", "/api/profiles");
  const profiles = listed.profiles || [];
  $("profile-rows").replaceChildren(...profiles.map((p) => profileRow(p, listed.active_profile)));
  $("profile-table").hidden = profiles.length === 0;
  $("profiles-empty").hidden = profiles.length > 0;
}

async function saveProfile(event) {
  event.preventDefault();
  const form = event.target;
  const name = form.name.value.trim();
  const result = $("profile-result");
  setDisabled($("profile-save"), "Saving…");
  try {
    await api("POST", `/api/profiles/${encodeURIComponent(name)}`, { llm: llmOf(form) });
    form.reset();
    await loadProfiles();
    showResult(result, `Profile ${name} saved. Checking it…`, true);
    const answer = await checkModel({ llm_profile: name });
    showResult(result, `Profile ${name} saved. ${answer.valid ? checkText(answer) : `But: ${checkText(answer)}`}`, answer.valid);
    state.onChange();
  } catch (err) {
    showResult(result, `Not saved: ${err.message}`, false);
  } finally {
    setDisabled($("profile-save"), "");
  }
}

async function loadLlmTab() {
  await Promise.all([loadDefaultLlm(), loadProfiles()]);
}

// -- secrets ------------------------------------------------------------------------------------

async function loadSecrets() {
  const listed = await api("GET", "/api/settings/secrets");
  const secrets = listed.secrets || [];
  const result = $("secret-result");
  $("secret-list").replaceChildren(...secrets.map((secret) => {
    const item = el("li", "item");
    item.dataset.name = secret.name;
    const text = el("div", "item-text");
    text.append(el("code", "item-name", secret.name));
    if (secret.description) text.append(el("span", "muted small", secret.description));
    const remove = smallButton("Delete", `Delete secret ${secret.name}`, async () => {
      try {
        await api("DELETE", `/api/settings/secrets/${encodeURIComponent(secret.name)}`);
        showResult(result, `Secret ${secret.name} deleted.`, true);
        await loadSecrets();
        state.onChange();
      } catch (err) {
        showResult(result, err.message, false);
      }
    }, "danger small-button");
    item.append(text, remove);
    return item;
  }));
  $("secrets-empty").hidden = secrets.length > 0;
}

async function saveSecret(event) {
  event.preventDefault();
  const form = event.target;
  const body = { name: form.name.value.trim(), value: form.value.value };
  if (form.description.value.trim()) body.description = form.description.value.trim();
  const result = $("secret-result");
  setDisabled($("secret-save"), "Saving…");
  try {
    await api("PUT", "/api/settings/secrets", body);
    form.reset();
    showResult(result, `Secret ${body.name} saved.`, true);
    await loadSecrets();
    state.onChange();
  } catch (err) {
    showResult(result, `Not saved: ${err.message}`, false);
  } finally {
    setDisabled($("secret-save"), "");
  }
}

// -- the view -----------------------------------------------------------------------------------

const LOADERS = {
  llm: loadLlmTab,
  secrets: loadSecrets,
  mcp: () => showMcp(state.onChange),
  skills: () => showExtensions("skills"),
  plugins: () => showExtensions("plugins"),
};

/** Show the settings view at `tab` (one of TABS); `focus` moves the keyboard focus there. */
export async function showSettings(tab, focus) {
  state.tab = TABS.includes(tab) ? tab : "llm";
  for (const name of TABS) $(`tab-${name}`).hidden = name !== state.tab;
  for (const link of document.querySelectorAll(".settings-tabs a")) {
    if (link.dataset.tab === state.tab) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (focus) $("settings-heading").focus();
  try {
    await LOADERS[state.tab]();
  } catch (err) {
    notify(`Could not read the settings: ${err.message}`);
  }
}

/** Wire the settings forms (once); `onChange` runs after anything stored changed. */
export function initSettings({ onChange }) {
  state.onChange = onChange;
  $("default-llm-form").addEventListener("submit", saveDefaultLlm);
  $("default-llm-form").addEventListener("input", (event) => (event.currentTarget.dataset.edited = "true"));
  $("default-check").addEventListener("click", checkDefaultLlm);
  $("profile-form").addEventListener("submit", saveProfile);
  $("secret-form").addEventListener("submit", saveSecret);
}

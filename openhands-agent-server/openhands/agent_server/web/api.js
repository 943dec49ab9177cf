// REST calls to the agent server, carrying the session key when one is saved.

const KEY_STORAGE = "openhands.sessionApiKey";
const KEY_HEADER = "X-Session-API-Key";
export const KEY_QUERY = "session_api_key"; // browsers cannot set headers on a WebSocket

export function sessionKey() {
  return localStorage.getItem(KEY_STORAGE) || "";
}

export function saveSessionKey(value) {
  if (value) localStorage.setItem(KEY_STORAGE, value);
  else localStorage.removeItem(KEY_STORAGE);
}

function errorText(status, body) {
  if (body && typeof body.message === "string") return body.message;
  if (body && typeof body.detail === "string") return body.detail;
  if (body && Array.isArray(body.detail)) {
    return body.detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
  }
  return `HTTP ${status}`;
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const key = sessionKey();
  if (key) headers[KEY_HEADER] = key;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new Error(`Cannot reach the agent server (${err.message}). Is it running?`);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!response.ok) {
    if (response.status === 401) {
      throw new Error("The server needs a session API key: enter it at the top and press Save key.");
    }
    const error = new Error(errorText(response.status, data));
    error.status = response.status;
    throw error;
  }
  return data;
}

// The page's one client of /ui-api (docs/admin-page.md). The access token lives in this module's
// memory only, never in localStorage or sessionStorage: a reload gets a new one from the refresh
// cookie (HttpOnly, limited to /ui-api/auth/refresh), so script on the page can never read a
// long-lived credential.

const AUTH = "/ui-api/auth";

let accessToken = null;
let currentUser = null;
let refreshing = null;

/** An error answer of a service: status, code and message from voxd's one error shape; `said`, the
 * sentence a voice answer's error carries for a person (the command center's 503s, docs/api.md). */
export class ApiError extends Error {
  constructor(status, code, message, details, said = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.said = said;
  }
}

async function errorOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: a proxy's or a browser's own page
  }
  const error = body && body.error ? body.error : {};
  return new ApiError(response.status, error.code || "http_" + response.status,
    error.message || response.statusText || "request failed", error.details,
    body && typeof body.text === "string" ? body.text : null);
}

function session(body) {
  accessToken = body.access_token;
  currentUser = body.user;
  return currentUser;
}

function forget() {
  accessToken = null;
  currentUser = null;
}

/** The session is over (the refresh cookie was refused): the shell shows the login form. */
export const SESSION_ENDED = "voxd-session-ended";

function ended() {
  const hadSession = currentUser !== null;
  forget();
  if (hadSession) window.dispatchEvent(new Event(SESSION_ENDED));
  return null;
}

/** Trade the refresh cookie for a new access token; concurrent callers share one request. */
export function refresh() {
  if (!refreshing) {
    refreshing = fetch(AUTH + "/refresh", { method: "POST", credentials: "same-origin" })
      .then(async (response) => (response.ok ? session(await response.json()) : ended()))
      .catch(() => null) // the network, not the session: the token may still be good
      .finally(() => { refreshing = null; });
  }
  return refreshing;
}

export async function login(username, password) {
  const response = await fetch(AUTH + "/login", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  if (!response.ok) throw await errorOf(response);
  return session(await response.json());
}

/** One's own password: the other sessions end, this one goes on with the new token (and cookie). */
export async function changePassword(oldPassword, newPassword) {
  const response = await send("POST", new URL(AUTH + "/password", location.origin),
    { body: { old_password: oldPassword, new_password: newPassword } });
  return session(await response.json());
}

export async function logout() {
  forget();
  await fetch(AUTH + "/refresh", { method: "DELETE", credentials: "same-origin" }).catch(() => null);
}

export function user() {
  return currentUser;
}

function urlOf(service, path, query) {
  const url = new URL(`/ui-api/${service}${path}`, location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, value);
  }
  return url;
}

function isRaw(body) {
  return body instanceof Blob || body instanceof FormData || body instanceof ArrayBuffer
    || body instanceof URLSearchParams;
}

/** One fetch with the bearer token; a 401 refreshes the token once and tries again. */
async function send(method, url, { body, headers = {}, signal } = {}) {
  const attempt = () => {
    const all = { ...headers };
    if (accessToken) all.Authorization = "Bearer " + accessToken;
    let payload = body;
    if (body !== undefined && !isRaw(body)) {
      all["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    return fetch(url, { method, headers: all, body: payload, signal, credentials: "same-origin" });
  };
  let response = await attempt();
  if (response.status === 401 && (await refresh())) response = await attempt();
  if (!response.ok) throw await errorOf(response);
  return response;
}

async function call(method, service, path, body, query) {
  const response = await send(method, urlOf(service, path, query), { body });
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response;
}

/** Parse a text/event-stream body into events: {event, data, id}; data parsed as JSON when it is. */
async function readEvents(response, onEvent, signal) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (!signal.aborted) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { event: "message", data: "", id: null };
      const data = [];
      for (const line of block.split("\n")) {
        if (!line || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") data.push(text);
        else if (field === "event") event.event = text;
        else if (field === "id") event.id = text;
      }
      if (!data.length) continue;
      event.data = data.join("\n");
      try {
        event.data = JSON.parse(event.data);
      } catch {
        // plain text data stays text
      }
      onEvent(event);
    }
  }
}

/**
 * Server-sent events over fetch (EventSource cannot send an Authorization header). Answers
 * {close(), done}: done settles when the stream ends, is closed, or fails (then with the error);
 * onOpen runs once the service has answered and events can arrive; lastEventId resumes after the
 * event of that id (sent as Last-Event-ID, as EventSource does when it reconnects).
 */
function stream(service, path, onEvent, { query, signal, onOpen, lastEventId } = {}) {
  const controller = new AbortController();
  if (signal) signal.addEventListener("abort", () => controller.abort(), { once: true });
  const done = (async () => {
    const response = await send("GET", urlOf(service, path, query), {
      headers: { Accept: "text/event-stream", ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}) },
      signal: controller.signal,
    });
    if (onOpen) onOpen(response);
    await readEvents(response, onEvent, controller.signal);
  })().catch((error) => {
    if (!controller.signal.aborted) throw error;
  });
  return { close: () => controller.abort(), done };
}

export const api = {
  get: (service, path, query) => call("GET", service, path, undefined, query),
  post: (service, path, body) => call("POST", service, path, body),
  put: (service, path, body) => call("PUT", service, path, body),
  patch: (service, path, body) => call("PATCH", service, path, body),
  delete: (service, path, body) => call("DELETE", service, path, body),
  stream,
  login,
  logout,
  changePassword,
  refresh,
  user,
};

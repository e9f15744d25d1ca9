// clubhouse.js — the host's client module for every panel (served at /ui/_/clubhouse.js).
// A panel imports it by absolute path:  import { call, showError } from "/ui/_/clubhouse.js";
// It gives the same few things to every panel: call a plugin's route with this browser's credentials
// (the pairing cookie, sent by the browser itself), follow a queued job until it is done (and stop
// following it), and show an error line worded as the command line words it ("clubhouse: …").
// Live events (Server-Sent Events) are not served by the host yet: `watch` polls instead.

/** An error from the host or a plugin: `status` is the reply status ("not-found", …), `http` the code. */
export class ClubhouseError extends Error {
  constructor(status, message, http) {
    super(message);
    this.name = "ClubhouseError";
    this.status = status;
    this.http = http;
  }
}

function withQuery(path, query) {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === false) continue;
    params.append(key, value === true ? "true" : Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

/**
 * Calls a route: `call("GET", "/api/scorecard/rounds")`, `call("POST", path, { body: {…} })`.
 * Answers the reply's data (parsed JSON, or text for other types; an ArrayBuffer with `binary: true`);
 * throws a ClubhouseError.
 */
export async function call(method, path, { body, query, signal, accept, binary } = {}) {
  const init = { method, credentials: "same-origin", headers: { Accept: accept || "application/json" }, signal };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(withQuery(path, query), init);
  } catch (error) {
    if (error && error.name === "AbortError") throw new ClubhouseError("cancelled", "cancelled", 499);
    throw new ClubhouseError("io", "the host cannot be reached; check the connection and try again", 0);
  }
  const type = response.headers.get("Content-Type") || "";
  if (binary && response.ok) return response.arrayBuffer();
  const text = await response.text();
  if (!response.ok) {
    let status = "error";
    let message = `${method} ${path} answered ${response.status}`;
    try {
      const parsed = JSON.parse(text);
      if (parsed && parsed.error) {
        status = parsed.error.status || status;
        message = parsed.error.message || message;
      }
    } catch (_) { /* not JSON: keep the generic line */ }
    throw new ClubhouseError(status, message, response.status);
  }
  if (type.startsWith("application/json")) return text ? JSON.parse(text) : null;
  return text;
}

/** The line the command line would print for this error. */
export function errorLine(error) {
  const message = error && error.message ? error.message : String(error);
  return `clubhouse: ${message}`;
}

/**
 * Shows an error where the action was: `element` gets the line (role="alert" so a screen reader says
 * it); `null` clears it. A 401 also says how to pair.
 */
export function showError(element, error) {
  if (!element) return;
  if (!error) {
    element.textContent = "";
    element.hidden = true;
    return;
  }
  let line = errorLine(error);
  if (error.http === 401) line += " — open the home page to pair this browser";
  element.textContent = line;
  element.setAttribute("role", "alert");
  element.hidden = false;
}

/** Who this browser is at this host, and the site's panels (GET /api/_/session). */
export function session() {
  return call("GET", "/api/_/session");
}

/** Exchanges a pairing code (from `clubhouse token pair`) for this browser's cookie. */
export function pair(code) {
  return call("POST", "/api/_/pair", { body: { code: code.trim() } });
}

/**
 * Follows a queued job (a route that answered `{job: {id, …}}`) by polling its job route until it is
 * no longer queued or running; `onProgress(job)` sees each state. Answers the finished job; throws a
 * ClubhouseError("cancelled") once `signal` aborts (the page stops following; the host's job goes on).
 */
export async function follow(jobPath, { signal, onProgress, intervalMs = 250 } = {}) {
  for (;;) {
    if (signal && signal.aborted) throw new ClubhouseError("cancelled", "cancelled", 499);
    const data = await call("GET", jobPath, { signal });
    const job = data && data.job ? data.job : data;
    if (onProgress) onProgress(job);
    const state = job && (job.state || job.status);
    if (state !== "queued" && state !== "running") return data;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Calls `load()` now and every `intervalMs` while the page is visible, handing each answer to
 * `render`; answers a function that stops it. (The host's events are not served yet.)
 */
export function watch(load, render, { intervalMs = 3000, onError } = {}) {
  let stopped = false;
  let timer = null;
  async function tick() {
    if (stopped) return;
    if (document.visibilityState !== "hidden") {
      try { render(await load()); } catch (error) { if (onError) onError(error); }
    }
    if (!stopped) timer = setTimeout(tick, intervalMs);
  }
  tick();
  return () => { stopped = true; if (timer) clearTimeout(timer); };
}

/** Creates an element: `el("button", {class: "big", onclick: f, "aria-label": "…"}, "text", child…)`. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

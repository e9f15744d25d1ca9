// clubhouse.js — the host's client module for every panel (served at /ui/_/clubhouse.js).
// A panel imports it by absolute path:  import { call, showError } from "/ui/_/clubhouse.js";
// It gives the same few things to every panel: call a plugin's route with this browser's credentials
// (the pairing cookie, sent by the browser itself), follow a queued job until it is done (and stop
// following it), subscribe to a plugin's live events (Server-Sent Events, `subscribe`), and show an error
// line worded as the command line words it ("clubhouse: …").

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
export async function call(method, path, { body, query, signal, accept, binary, headers } = {}) {
  const init = { method, credentials: "same-origin", headers: { Accept: accept || "application/json", ...(headers || {}) }, signal };
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
 * Subscribes to a plugin's live events (GET /api/<alias>/events, Server-Sent Events):
 * `subscribe("scorecard", ["score"], (event) => …)` calls `onEvent({topic, id, data})` for each event
 * (`data` parsed JSON). When events may have been missed — the host no longer kept some (its
 * `clubhouse.missed`), or the stream had to be opened anew after the host refused or restarted — it calls
 * `onEvent({topic: "clubhouse.missed", id, data: {after}})`: load the state again rather than rely on the
 * events. The browser resumes a dropped stream by itself with `Last-Event-ID`; a stream the host closed
 * for good (a refusal, a restart) is opened again after 1, 2, 4 … up to 15 s. `onState("open" |
 * "connecting" | "closed")` follows the connection. Answers a function that ends the subscription.
 */
export function subscribe(alias, topics, onEvent, { onState } = {}) {
  // Named events reach only the listeners of their names: the topics are needed.
  const list = Array.isArray(topics) ? topics : topics ? [topics] : [];
  if (!list.length) throw new Error("subscribe: name the plugin's topics to follow");
  const url = `/api/${encodeURIComponent(alias)}/events?topics=${list.map(encodeURIComponent).join(",")}`;
  let source = null;
  let ended = false;
  let timer = null;
  let lastId = null;
  let delay = 1000;
  let reopened = false;
  const state = (value) => { if (onState) onState(value); };
  const deliver = (topic, message) => {
    if (message.lastEventId) lastId = message.lastEventId;
    let data = null;
    try { data = message.data ? JSON.parse(message.data) : null; } catch (_) { data = message.data; }
    onEvent({ topic, id: message.lastEventId || null, data });
  };
  function open() {
    if (ended) return;
    state("connecting");
    source = new EventSource(url, { withCredentials: true });
    source.onopen = () => {
      delay = 1000;
      state("open");
      // A stream opened anew starts from now: what came meanwhile may be missed.
      if (reopened) onEvent({ topic: "clubhouse.missed", id: lastId, data: { after: lastId === null ? null : Number(lastId) } });
      reopened = false;
    };
    for (const topic of list) source.addEventListener(topic, (message) => deliver(topic, message));
    source.addEventListener("clubhouse.missed", (message) => deliver("clubhouse.missed", message));
    source.onerror = () => {
      if (ended) return;
      if (source.readyState === EventSource.CLOSED) {
        // Closed for good (the host refused or went away): open it again later.
        source.close();
        state("closed");
        reopened = true;
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 15000);
      } else {
        state("connecting");   // the browser resumes it with Last-Event-ID
      }
    };
  }
  open();
  return () => {
    ended = true;
    if (timer) clearTimeout(timer);
    if (source) source.close();
    state("closed");
  };
}

/**
 * Calls `load()` now and every `intervalMs` while the page is visible, handing each answer to
 * `render`; answers a function that stops it (for what publishes no events).
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

/**
 * Calls a route as a followed call (Host/HTTP.md "Following a call"): the request goes with
 * `Accept: text/event-stream`, `onProgress({label, done, total, unit, finished, cancelled})` hears the
 * plugin's progress, and the route's reply data is answered once the call ends. Aborting `signal`
 * cancels the call on the host (DELETE of the call's URL); the promise then throws
 * ClubhouseError("cancelled").
 */
export async function followCall(method, path, { body, query, signal, onProgress } = {}) {
  const own = new AbortController();
  let url = null;
  let fallback = null;
  // Cancelled on the host by the call's URL (its stream then ends with `error` 499); before the call has
  // said its URL, or when the host says nothing within 3 s, by closing the stream.
  const cancel = () => {
    if (!url) { own.abort(); return; }
    fetch(url, { method: "DELETE", credentials: "same-origin", keepalive: true }).catch(() => {});
    fallback = setTimeout(() => own.abort(), 3000);
  };
  if (signal) {
    if (signal.aborted) throw new ClubhouseError("cancelled", "cancelled", 499);
    signal.addEventListener("abort", cancel, { once: true });
  }
  const init = { method, credentials: "same-origin", headers: { Accept: "text/event-stream" }, signal: own.signal };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    let response;
    try {
      response = await fetch(withQuery(path, query), init);
    } catch (error) {
      if (own.signal.aborted) throw new ClubhouseError("cancelled", "cancelled", 499);
      throw new ClubhouseError("io", "the host cannot be reached; check the connection and try again", 0);
    }
    if (!response.ok || !(response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
      let status = "error", message = `${method} ${path} answered ${response.status}`;
      try { const e = JSON.parse(await response.text()).error; if (e) { status = e.status || status; message = e.message || message; } } catch (_) { /* keep */ }
      throw new ClubhouseError(status, message, response.status);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      let chunk;
      try { chunk = await reader.read(); } catch (_) {
        if (own.signal.aborted) throw new ClubhouseError("cancelled", "cancelled", 499);
        throw new ClubhouseError("io", "the host cannot be reached; check the connection and try again", 0);
      }
      // The stream ended without its result: the connection went away (the host said nothing more).
      if (chunk.done) throw new ClubhouseError("io", "the host cannot be reached; check the connection and try again", 0);
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        }
        if (!data) continue;
        const value = JSON.parse(data);
        if (name === "call") url = value.url;
        else if (name === "progress" && onProgress) onProgress(value);
        else if (name === "result") return value.data;
        else if (name === "error") {
          const e = value.error || {};
          throw new ClubhouseError(e.status || "error", e.message || `${method} ${path} failed`, value.status || 0);
        }
      }
    }
  } finally {
    if (signal) signal.removeEventListener("abort", cancel);
    if (fallback) clearTimeout(fallback);
    own.abort();
  }
}

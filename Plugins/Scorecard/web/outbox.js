// outbox.js — scores saved while the phone has no connection wait here (localStorage, so a reload or a
// closed tab loses none) and are sent, in order, when it returns. Each score gets its own random
// Idempotency-Key when it is saved: a score whose answer was lost is sent again with the same key and
// the host answers it without entering it twice (Host/HTTP.md, "Repeated writes").
import { ClubhouseError } from "/ui/_/clubhouse.js";

const storageKey = "clubhouse.scorecard.outbox";
let sending = null;

/** The scores waiting: [{round, hole, player, strokes, key}]. */
export function waiting() {
  try {
    const items = JSON.parse(localStorage.getItem(storageKey) || "[]");
    return Array.isArray(items) ? items : [];
  } catch (_) {
    return [];
  }
}

function keep(items) {
  localStorage.setItem(storageKey, JSON.stringify(items));
}

function newKey() {
  // getRandomValues works on a plain-HTTP address too (randomUUID needs a secure context).
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Queues a hole's scores (`[[player, strokes], …]`) of a round. */
export function add(round, hole, scores) {
  keep([...waiting(), ...scores.map(([player, strokes]) => ({ round, hole, player, strokes, key: newKey() }))]);
}

/**
 * Sends the waiting scores one by one, oldest first; stops at the first that cannot reach the host (it
 * stays, as do those after it). `onSent(item)` for each entered, `onRefused(item, error)` for one the
 * host refused (it leaves the queue: sending it again would be refused again). Answers how many wait.
 */
export function flush({ onSent, onRefused } = {}) {
  if (!sending) sending = send(onSent, onRefused).finally(() => { sending = null; });
  return sending;
}

async function send(onSent, onRefused) {
  for (;;) {
    const [item] = waiting();
    if (!item) return 0;
    let response;
    try {
      response = await fetch(`/api/scorecard/rounds/${encodeURIComponent(item.round)}/scores`, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "Idempotency-Key": item.key },
        body: JSON.stringify({ player: item.player, hole: item.hole, strokes: item.strokes }),
      });
    } catch (_) {
      return waiting().length;   // no connection: try again later
    }
    // Busy, overloaded or still answering the first send: try again later, with the same key.
    if (response.status >= 500 || [408, 409, 429].includes(response.status)) return waiting().length;
    keep(waiting().filter((i) => i.key !== item.key));
    if (response.ok) {
      if (onSent) onSent(item);
    } else if (onRefused) {
      let error = { status: "error", message: `the score of ${item.player} on hole ${item.hole} was refused (${response.status})` };
      try { error = (await response.json()).error || error; } catch (_) { /* keep the line above */ }
      onRefused(item, new ClubhouseError(error.status, error.message, response.status));
    }
  }
}

// The scorecard panel: start a round, then one screen per hole for the whole group (big +/− buttons, the
// hole's par and stroke index, each player's strokes received), the live leaderboard of the round's
// format (live through the plugin's `score` events: every phone in the group sees the same board), previous rounds.
// Render from data: `model` holds everything; events change it and call `render()`.
import { call, el, showError, subscribe } from "/ui/_/clubhouse.js";
import * as outbox from "./outbox.js";

const api = "/api/scorecard";
const app = document.getElementById("app");

const model = {
  view: "home",          // "home" | "round"
  courses: [], players: [], rounds: [],
  start: { course: "", tee: "", format: "stroke-play", holes: 18, players: new Set() },
  round: null,           // the round's description {id, course, tee, holes, nine, format, players: […]}
  holes: [],             // the round's holes [{number, par, strokeIndex}]
  hole: 1,
  scores: new Map(),     // "playerName|hole" → strokes (current entries)
  pending: new Map(),    // playerName → strokes typed on this hole, not yet saved
  board: null,           // the leaderboard
  saving: false,
  status: "",
  announce: "",          // what a screen reader is told after a change (the view itself is drawn anew)
  error: null,
};

const formats = [["stroke-play", "Stroke play"], ["stableford", "Stableford"], ["match-play", "Match play"],
  ["four-ball-stroke-play", "Four-ball stroke play"], ["four-ball-match-play", "Four-ball match play"], ["skins", "Skins"]];

// ---- data ----------------------------------------------------------------------------------------

async function loadHome() {
  const [courses, players, rounds] = await Promise.all([
    call("GET", `${api}/courses`), call("GET", `${api}/players`), call("GET", `${api}/rounds`)]);
  model.courses = courses.courses || [];
  model.players = players.players || [];
  model.rounds = rounds.rounds || [];
  if (!model.start.course && model.courses.length) model.start.course = String(model.courses[0].id);
  pickTee();
}

function pickTee() {
  const course = model.courses.find((c) => String(c.id) === model.start.course);
  const tees = course ? course.tees : [];
  if (!tees.some((t) => t.name === model.start.tee)) model.start.tee = tees.length ? tees[0].name : "";
  const tee = tees.find((t) => t.name === model.start.tee);
  if (tee && tee.holes === 9) model.start.holes = 9;
}

async function openRound(id) {
  const board = await call("GET", `${api}/rounds/${id}/leaderboard`);
  model.round = board.round;
  model.board = board;
  const course = await call("GET", `${api}/courses/${encodeURIComponent(board.round.course)}`);
  const tee = (course.course.tees || []).find((t) => t.name === board.round.tee);
  let holes = tee ? tee.holes : [];
  if (board.round.holes === 9 && holes.length === 18) holes = board.round.nine === "back" ? holes.slice(9) : holes.slice(0, 9);
  model.holes = holes;
  await loadScores();
  model.view = "round";
  if (!holes.some((h) => h.number === model.hole)) model.hole = firstUnscored();
}

async function loadScores() {
  const entries = await call("GET", `${api}/rounds/${model.round.id}/entries`);
  model.scores = new Map();
  for (const e of entries.entries || []) if (e.current) model.scores.set(`${e.player}|${e.hole}`, e.strokes);
}

async function refresh() {
  if (model.view !== "round" || !model.round) return;
  const [board] = await Promise.all([call("GET", `${api}/rounds/${model.round.id}/leaderboard`), loadScores()]);
  model.board = board;
  model.round = board.round;
}

function firstUnscored() {
  for (const h of model.holes) {
    if (model.round.players.some((p) => !model.scores.has(`${p.name}|${h.number}`))) return h.number;
  }
  return model.holes.length ? model.holes[model.holes.length - 1].number : 1;
}

// ---- strokes received (the plugin's rule: ⌊c/n⌋ + (rank ≤ c mod n); a plus handicap gives back) ----

function strokesReceived(playingHandicap, hole) {
  if (playingHandicap === null || playingHandicap === undefined) return 0;
  const n = model.holes.length || 18;
  // The hole's rank by stroke index among the round's holes (for nine holes: among the nine).
  const rank = [...model.holes].sort((a, b) => a.strokeIndex - b.strokeIndex).findIndex((h) => h.number === hole.number) + 1;
  const c = Math.abs(playingHandicap);
  const whole = Math.floor(c / n);
  const rest = c % n;
  if (playingHandicap >= 0) return whole + (rank <= rest ? 1 : 0);
  return -(whole + (rank > n - rest ? 1 : 0));
}

// ---- actions -------------------------------------------------------------------------------------

async function act(work) {
  model.error = null;
  try { await work(); } catch (error) { model.error = error; }
  render();
}

function go(view, roundID, hole) {
  const hash = view === "round" ? `#round=${roundID}&hole=${hole}` : "#";
  if (location.hash !== hash) history.replaceState(null, "", hash || "#");
}

async function startRound(event) {
  event.preventDefault();
  await act(async () => {
    const players = model.players.filter((p) => model.start.players.has(p.name)).map((p) => p.name);
    const course = model.courses.find((c) => String(c.id) === model.start.course);
    const body = { course: course ? course.name : model.start.course, tee: model.start.tee, players: players.join(","),
      format: model.start.format, holes: model.start.holes };
    const started = await call("POST", `${api}/rounds`, { body });
    model.hole = 1;
    model.pending.clear();
    await openRound(started.round.id);
    model.hole = model.holes.length ? model.holes[0].number : 1;
    go("round", model.round.id, model.hole);
  });
}

async function addPlayer(event) {
  event.preventDefault();
  const input = document.getElementById("new-player");
  const name = input.value.trim();
  if (!name) return;
  await act(async () => {
    await call("POST", `${api}/players`, { body: { name } });
    model.start.players.add(name);
    await loadHome();
  });
}

function step(player, delta) {
  const hole = currentHole();
  const saved = model.scores.get(`${player}|${hole.number}`);
  const now = model.pending.has(player) ? model.pending.get(player) : saved;
  const next = now === undefined ? hole.par + (delta > 0 ? 0 : -1) : now + delta;
  if (next < 1 || next > 20) return;
  if (next === saved) model.pending.delete(player); else model.pending.set(player, next);
  model.status = "";
  model.announce = `${player}: ${next} on hole ${hole.number}`;
  render();
}

// Saving puts the hole's scores in the outbox (kept on this phone) and sends them; without a connection
// they wait there and go when it returns, each once (its Idempotency-Key).
async function saveHole() {
  const hole = currentHole();
  outbox.add(model.round.id, hole.number, [...model.pending]);
  model.pending.clear();
  await sendWaiting(`Hole ${hole.number} saved.`);
}

async function sendWaiting(done) {
  if (!outbox.waiting().length) return;
  model.saving = true;
  render();
  model.error = null;
  const left = await outbox.flush({
    onSent: (item) => {
      if (model.round && String(item.round) === String(model.round.id)) model.scores.set(`${item.player}|${item.hole}`, item.strokes);
    },
    onRefused: (_, error) => { model.error = error; },
  });
  model.saving = false;
  if (left) {
    model.status = `No connection: ${left} score${left > 1 ? "s" : ""} kept on this phone, sent when the connection returns.`;
  } else {
    model.status = done || "Every score kept on this phone is sent.";
    try { await refresh(); } catch (_) { /* the next poll shows the board */ }
  }
  model.announce = model.status;
  render();
}

function moveHole(delta) {
  const index = model.holes.findIndex((h) => h.number === model.hole);
  const next = model.holes[index + delta];
  if (!next) return;
  model.hole = next.number;
  model.pending.clear();
  model.status = "";
  model.announce = `Hole ${next.number}, par ${next.par}, stroke index ${next.strokeIndex}`;
  go("round", model.round.id, model.hole);
  render();
}

function currentHole() {
  return model.holes.find((h) => h.number === model.hole) || { number: model.hole, par: 4, strokeIndex: 0 };
}

// ---- views ---------------------------------------------------------------------------------------

function errorLine() {
  const line = el("p", { class: "error", id: "error", role: "alert" });
  showError(line, model.error);
  return line;
}

function homeView() {
  const course = model.courses.find((c) => String(c.id) === model.start.course);
  const tees = course ? course.tees : [];
  const form = el("form", { id: "start-form", onsubmit: startRound },
    el("div", { class: "row" },
      el("div", {}, el("label", { for: "course" }, "Course"),
        el("select", { id: "course", onchange: (e) => { model.start.course = e.target.value; pickTee(); render(); } },
          model.courses.map((c) => el("option", { value: c.id, selected: String(c.id) === model.start.course }, c.name)))),
      el("div", {}, el("label", { for: "tee" }, "Tee"),
        el("select", { id: "tee", onchange: (e) => { model.start.tee = e.target.value; pickTee(); render(); } },
          tees.map((t) => el("option", { value: t.name, selected: t.name === model.start.tee }, `${t.name} (par ${t.par}, ${t.holes} holes)`)))),
      el("div", {}, el("label", { for: "format" }, "Format"),
        el("select", { id: "format", onchange: (e) => { model.start.format = e.target.value; } },
          formats.map(([value, label]) => el("option", { value, selected: value === model.start.format }, label)))),
      el("div", {}, el("label", { for: "holes" }, "Holes"),
        el("select", { id: "holes", onchange: (e) => { model.start.holes = Number(e.target.value); } },
          [18, 9].map((n) => el("option", { value: n, selected: n === model.start.holes }, String(n)))))),
    el("fieldset", { class: "players-pick" }, el("legend", {}, "Players"),
      el("div", { class: "checks" }, model.players.map((p) => el("label", {},
        el("input", { type: "checkbox", name: "player", value: p.name, checked: model.start.players.has(p.name),
          onchange: (e) => { if (e.target.checked) model.start.players.add(p.name); else model.start.players.delete(p.name); } }),
        `${p.name}`, el("span", { class: "muted" }, p.index === null ? "no index" : `HI ${p.index.toFixed(1)}`))))),
    el("div", { class: "actions" }, el("button", { class: "primary", type: "submit", id: "start" }, "Start round")));
  const addForm = el("form", { class: "row", onsubmit: addPlayer },
    el("div", {}, el("label", { for: "new-player" }, "New player"), el("input", { id: "new-player", autocomplete: "name" })),
    el("div", {}, el("button", { type: "submit" }, "Add player")));
  const rounds = el("ul", { class: "rounds", id: "rounds" }, model.rounds.length ? model.rounds.map((entry) => {
    const r = entry.round;
    const leader = entry.lines && entry.lines[0] ? ` · ${entry.lines[0].name} leads` : "";
    return el("li", {}, el("button", { "data-round": r.id, onclick: () => act(async () => { model.pending.clear(); model.hole = 0; await openRound(r.id); go("round", r.id, model.hole); }) },
      el("span", {}, el("strong", {}, `${r.course} · ${r.tee}`), el("span", { class: "muted" }, ` ${r.date} · ${label(r.format)} · ${r.players.map((p) => p.name).join(", ")}${leader}`)),
      el("span", {}, r.status === "open" ? "Score ›" : "Card ›")));
  }) : [el("li", { class: "muted" }, "No rounds yet.")]);
  return [errorLine(), el("h2", {}, "Start a round"), form, addForm, el("h2", {}, "Rounds"), rounds];
}

function label(format) {
  const found = formats.find(([value]) => value === format);
  return found ? found[1] : format;
}

function roundView() {
  const hole = currentHole();
  const index = model.holes.findIndex((h) => h.number === hole.number);
  const open = model.round.status === "open";
  const players = model.round.players.map((p) => {
    const queued = outbox.waiting().filter((i) => String(i.round) === String(model.round.id) && i.hole === hole.number && i.player === p.name).pop();
    const saved = queued ? queued.strokes : model.scores.get(`${p.name}|${hole.number}`);
    const pending = model.pending.get(p.name);
    const shown = pending !== undefined ? pending : saved;
    const received = strokesReceived(p.playingHandicap, hole);
    const receivedText = received === 0 ? "no stroke" : received > 0 ? `receives ${received} stroke${received > 1 ? "s" : ""}` : `gives ${-received} back`;
    const value = el("output", { class: shown === undefined ? "unset" : pending !== undefined ? "changed" : "",
      "aria-live": "polite", "data-player": p.name }, shown === undefined ? "–" : String(shown));
    return el("li", { class: "player" },
      el("div", {}, el("span", { class: "name" }, p.name),
        el("span", { class: "received" }, `${receivedText}${p.playingHandicap === null ? " · plays off 0" : ` · PH ${p.playingHandicap}`}`)),
      el("div", { class: "stepper" },
        el("button", { type: "button", "aria-label": `One stroke fewer for ${p.name}`, disabled: !open, onclick: () => step(p.name, -1) }, "−"),
        value,
        el("button", { type: "button", "aria-label": `One stroke more for ${p.name}`, disabled: !open, onclick: () => step(p.name, +1) }, "+")));
  });
  const head = el("div", { class: "hole-head" },
    el("button", { type: "button", id: "prev", "aria-label": "Previous hole", disabled: index <= 0, onclick: () => moveHole(-1) }, "‹"),
    el("h2", { id: "hole-title" }, `Hole ${hole.number}`, el("span", { class: "facts" }, `Par ${hole.par} · Stroke index ${hole.strokeIndex}`)),
    el("button", { type: "button", id: "next", "aria-label": "Next hole", disabled: index >= model.holes.length - 1, onclick: () => moveHole(+1) }, "›"));
  const actions = el("div", { class: "actions" },
    el("button", { type: "button", class: "primary", id: "save", disabled: !open || model.saving || model.pending.size === 0, onclick: saveHole },
      model.saving ? "Saving…" : `Save hole ${hole.number}`));
  const card = el("section", { "aria-label": `Hole ${hole.number}` }, head,
    el("p", { class: "muted" }, `${model.round.course} · ${model.round.tee} · ${label(model.round.format)}${open ? "" : " · finished"}`),
    el("ul", { class: "players", id: "players" }, players), actions,
    el("p", { class: "status", role: "status", id: "status" }, model.status), errorLine());
  return [el("div", { class: "round-layout" }, card, el("section", { "aria-labelledby": "board-title" },
    el("h2", { id: "board-title" }, "Leaderboard"), boardView(model.board),
    el("p", {}, el("button", { type: "button", id: "back", onclick: () => act(async () => { model.view = "home"; go("home"); await loadHome(); }) }, "All rounds"))))];
}

function signed(n) {
  if (n === null || n === undefined) return "";
  return n === 0 ? "E" : n > 0 ? `+${n}` : String(n);
}

function boardView(board) {
  if (!board) return el("p", { class: "muted" }, "No scores yet.");
  const parts = [];
  if (board.match) parts.push(el("p", { class: "match", id: "match-status" }, el("strong", {}, board.match.status || board.match.result || "")));
  if (board.skins) {
    const won = {};
    for (const h of board.skins.holes || []) if (h.winner) won[h.winner] = (won[h.winner] || 0) + h.value;
    parts.push(el("p", { id: "skins" }, Object.keys(won).length ? Object.entries(won).map(([n, v]) => `${n} ${v}`).join(" · ") : "No skin won yet."));
  }
  if (board.stableford) {
    parts.push(el("table", { class: "board", id: "board" }, el("caption", {}, "Stableford points"),
      el("thead", {}, el("tr", {}, el("th", { class: "pos" }, "#"), el("th", {}, "Player"), el("th", { class: "num" }, "Thru"), el("th", { class: "num" }, "Points"))),
      el("tbody", {}, board.stableford.map((l) => el("tr", {}, el("td", { class: "pos" }, l.position), el("td", {}, l.name),
        el("td", { class: "num" }, l.holesPlayed), el("td", { class: "num" }, l.points))))));
    return parts;
  }
  const lines = board.lines || [];
  parts.push(el("table", { class: "board", id: "board" }, el("caption", {}, "Net and gross"),
    el("thead", {}, el("tr", {}, el("th", { class: "pos" }, "#"), el("th", {}, "Player"), el("th", { class: "num" }, "Thru"),
      el("th", { class: "num" }, "Gross"), el("th", { class: "num" }, "Net"), el("th", { class: "num" }, "To par"))),
    el("tbody", {}, lines.map((l) => el("tr", { "data-player": l.name }, el("td", { class: "pos" }, l.position), el("td", {}, l.name),
      el("td", { class: "num" }, l.holesPlayed), el("td", { class: "num" }, l.gross ?? "–"), el("td", { class: "num" }, l.net ?? "–"),
      el("td", { class: "num" }, signed(l.netToPar) || "–"))))));
  return parts;
}

function render() {
  document.getElementById("title").textContent = model.view === "round" && model.round ? `Round ${model.round.id}` : "Scorecard";
  const focused = document.activeElement && document.activeElement.getAttribute("aria-label");
  app.replaceChildren(...(model.view === "round" && model.round ? roundView() : homeView()));
  // The view is drawn anew: a live region inside it would be new each time (and say nothing, or all of
  // it); the change is said once in the page's own live region instead.
  const announce = document.getElementById("announce");
  if (announce.textContent !== model.announce) announce.textContent = model.announce;
  // Keep the focus on the control a keyboard user was on (the view is drawn anew).
  if (focused) {
    const again = [...app.querySelectorAll("[aria-label]")].find((n) => n.getAttribute("aria-label") === focused);
    if (again) again.focus();
  }
}

// ---- start ---------------------------------------------------------------------------------------

async function boot() {
  const params = new URLSearchParams(location.hash.slice(1));
  await act(async () => {
    await loadHome();
    if (params.get("round")) {
      model.hole = Number(params.get("hole")) || 0;
      await openRound(params.get("round"));
    }
  });
  performance.mark("clubhouse:rendered");   // the first full view (the browser tests report it)
  // The group's other phones enter scores too: each score of this round (the plugin's `score` events)
  // loads the board and the saved scores again — and so does a stream that may have missed some.
  // Drawn again only when something changed (a redraw under a finger could swallow a tap).
  // Not while a finger or the mouse is down: the redraw waits for its release.
  let last = "";
  let queued = null;
  let pressed = false;
  document.addEventListener("pointerdown", () => { pressed = true; }, true);
  const released = () => { pressed = false; };
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);
  const draw = () => {
    if (pressed) { setTimeout(draw, 50); return; }
    if (model.error && model.error.status === "io") { model.error = null; last = ""; }
    if (model.view !== "round") return;
    const now = JSON.stringify([model.board, [...model.scores]]);
    if (now !== last) { last = now; render(); }
  };
  const update = () => {
    if (queued) return;
    queued = setTimeout(async () => {
      queued = null;
      if (model.view !== "round") return;
      try { await refresh(); } catch (error) { model.error = error; render(); return; }
      draw();
    }, 50);
  };
  // Scores kept on this phone go as soon as the connection is back: on the browser's `online`, and
  // every 2 s while some wait (a phone may not notice that its connection returned).
  window.addEventListener("online", () => sendWaiting());
  sendWaiting();
  setInterval(() => { if (outbox.waiting().length) sendWaiting().then(draw, () => {}); }, 2000);
  subscribe("scorecard", ["score"], (event) => {
    if (event.topic === "clubhouse.missed" || (model.round && event.data && String(event.data.round) === String(model.round.id))) update();
  });
}

boot();

// The tennis panel: the court with its 16 zones — tap a spot and the ball machine fires there at the
// chosen speed and spin; the site's drills — run one and see each ball launched live (the plugin's
// `launch` events); a Stop always on screen while a drill runs; the drill's landing picture on the court.
// Render from data: `model` holds everything; actions change it and call `render()`.
//
// A drill runs as one call (POST …/run) that lasts as long as the drill. The host stops it — and the
// machine — when that call's connection closes (the tab closed, the page left) and when the page stops
// renewing its heartbeat lease (`Clubhouse-Lease`, every second: a connection dead without closing).
// Stop aborts the call (its connection closes at once) and cancels the lease (DELETE, sent even as the
// page goes away), so either reaching the host stops the machine.
//
// A drill started elsewhere (another phone, a JSON-RPC client) shows here too: the plugin's `drill`
// events say when one starts and ends, its `launch` events each ball, and `GET …/running` what runs when
// the page opens (or after events were missed). Its Stop asks the plugin to stop that run (POST …/stop).
import { call, el, showError, subscribe } from "/ui/_/clubhouse.js";
import { courtPoint, drawCourt, pointWords, zoneAt, zoneCentre, zoneWords } from "./court.js";

const api = "/api/tennis";
const leaseMs = 5000;
const spinNames = { flat: "flat", topspin: "topspin", "extreme-topspin": "extreme topspin", backspin: "backspin",
  "extreme-backspin": "extreme backspin" };
const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);

const model = {
  speed: 50,
  spin: "topspin",
  spins: ["flat", "topspin", "extreme-topspin"],
  aim: null,             // [x, y] the last spot fired at
  sending: false,
  shot: "",              // what the last shot did
  courtError: null,
  drills: null,          // [{hash, name, balls, savedAt}]
  drillError: null,
  sessions: null,
  balls: [],             // a drill's numbered balls on the court: {n, at, state}
  run: null,             // the running drill: {name, of, key, controller, launched, stopping, lost, started}
  remote: null,          // a drill started elsewhere: {run, name, of, launched: [line], count, stopping}
  last: null,            // the last drill's outcome: {name, text, launches: [line]}
  starting: null,        // the drill whose plan is being loaded before it runs
  live: "connecting",
  focusZone: null,       // the court's Tab stop (the arrow keys move it)
};

// ---- helpers --------------------------------------------------------------------------------------

const xy = (t) => (Array.isArray(t) ? t : [t.x, t.y]);
const mph = (s) => (typeof s === "number" ? s : s && s.mph);
const spinName = (s) => spinNames[s] || s;
const round2 = (v) => Math.round(v * 100) / 100;

function randomKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return "drill-" + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- data -----------------------------------------------------------------------------------------

async function loadTable() {
  const table = await call("GET", `${api}/table`);
  if (table && Array.isArray(table.spins) && table.spins.length) {
    model.spins = table.spins;
    if (!model.spins.includes(model.spin)) model.spin = model.spins.includes("topspin") ? "topspin" : model.spins[0];
  }
}

async function loadDrills() {
  try {
    const answer = await call("GET", `${api}/drills`);
    model.drills = answer.drills || [];
    model.drillError = null;
  } catch (error) {
    model.drills = model.drills || [];
    model.drillError = error;
  }
}

/** What the machine runs now (a drill started elsewhere before this page opened, or while events were missed). */
async function loadRunning() {
  try {
    const answer = await call("GET", `${api}/running`);
    const r = answer && answer.running;
    if (model.run) return;
    if (r && r.kind === "drill") {
      if (!model.remote || model.remote.run !== r.run) model.remote = { run: r.run, name: r.drill, of: r.of, launched: [], count: r.launched, stopping: r.stopRequested };
      else model.remote.count = Math.max(model.remote.count, r.launched);
    } else if (model.remote) {
      endRemote(null);
    }
  } catch (error) {
    model.drillError = model.drillError || error;
  }
}

async function loadSessions() {
  try {
    const answer = await call("GET", `${api}/sessions`, { query: { last: 5 } });
    model.sessions = answer.sessions || [];
  } catch (error) {
    model.sessions = model.sessions || [];
    model.drillError = model.drillError || error;
  }
}

// ---- actions --------------------------------------------------------------------------------------

/** Manual mode: the machine fires at this court point now. */
async function fire(point) {
  if (model.run || model.remote || model.sending || model.starting) return;
  const zone = zoneAt(point[0], point[1]);
  if (zone === null) {
    model.courtError = { message: "that spot is outside your half of the court; tap inside the lines" };
    render();
    return;
  }
  model.courtError = null;
  model.aim = point;
  model.balls = [];
  model.sending = true;
  model.shot = `Sending to ${zoneWords(zone)}…`;
  render();
  try {
    const reply = await call("POST", `${api}/send`, { body: { point: [round2(point[0]), round2(point[1])], speed: model.speed, spin: model.spin } });
    const launch = reply.log && reply.log.launches && reply.log.launches[0];
    const outcome = launch && launch.outcome ? launch.outcome.replace(/-/g, " ") : "did not answer";
    const stored = reply.sessionId ? ` Session ${reply.sessionId} stored.` : "";
    model.shot = `Fired at ${zoneWords(zone)} (${pointWords(point)}), ${model.speed} mph ${spinName(model.spin)}: the machine says ${outcome}.${stored}`;
  } catch (error) {
    model.shot = "";
    model.courtError = error;
  } finally {
    model.sending = false;
    render();
  }
  await loadSessions();
  render();
}

async function runDrill(name) {
  if (model.run || model.remote || model.sending || model.starting) return;
  model.drillError = null;
  model.last = null;
  model.starting = name;
  render();
  let plan;
  try {
    plan = (await call("GET", `${api}/drills/${encodeURIComponent(name)}`)).plan || [];
  } catch (error) {
    model.drillError = error;
    model.starting = null;
    render();
    return;
  }
  model.starting = null;
  const run = { name, of: plan.length, key: randomKey(), controller: new AbortController(), launched: [], stopping: false,
    lost: false, started: performance.now(), renew: null, wake: null };
  model.run = run;
  model.last = null;
  model.aim = null;
  model.shot = "";
  model.balls = plan.map((ball) => ({ n: ball.index, at: xy(ball.target), state: "planned" }));
  run.renew = setInterval(() => renew(run), 1000);
  keepAwake(run);
  render();
  document.getElementById("stop").focus();
  let text;
  try {
    const reply = await call("POST", `${api}/drills/${encodeURIComponent(name)}/run`, {
      body: {}, signal: run.controller.signal, headers: { "Clubhouse-Lease": `${run.key}; ms=${leaseMs}` } });
    const s = reply.log.summary;
    // The landing picture: where each ball was aimed, as the machine was told.
    model.balls = (reply.log.launches || []).filter((l) => l.target).map((l, i) => ({
      n: l.decision && l.decision.index ? l.decision.index : i + 1, at: xy(l.target), state: l.frame ? "launched" : "missed" }));
    text = `${s.launches} of ${run.of} balls launched, ${s.completed} completed${s.stopSent ? "; the machine stopped" : ""}. `
      + (reply.sessionId ? `Session ${reply.sessionId} stored.` : "");
  } catch (error) {
    if (run.stopping) {
      text = `Stopped by you after ${run.launched.length} of ${run.of} balls.`;
    } else if (error.status === "cancelled") {
      // The host cancelled it: its lease lapsed (this page could not reach it), or the host is stopping.
      text = `The host stopped the drill after ${run.launched.length} of ${run.of} balls`
        + (run.lost ? ": it did not hear from this page (the connection was lost)." : ".");
    } else {
      text = `The drill ended after ${run.launched.length} of ${run.of} balls.`;
      model.drillError = error;
    }
    for (const ball of model.balls) if (ball.state === "planned") ball.state = "missed";
  } finally {
    clearInterval(run.renew);
    if (run.wake) run.wake.release().catch(() => {});
  }
  model.last = { name, text, launches: run.launched };
  model.run = null;
  render();
  await loadSessions();
  render();
}

/** Renews the drill's lease; says so when the host cannot be reached (it stops the machine itself). */
async function renew(run) {
  try {
    const response = await fetch(`/api/_/leases/${run.key}`, { method: "POST", credentials: "same-origin" });
    const answer = response.ok ? await response.json() : null;
    run.lost = !response.ok;
    if (answer && answer.held === false) clearInterval(run.renew);   // the call has ended
  } catch (_) {
    run.lost = true;
  }
  if (model.run === run) renderRunning();
}

/** Stop: the drill's call is aborted (its connection closes) and its lease cancelled, whichever reaches the host first. */
function stop() {
  if (!model.run && model.remote) { stopRemote(model.remote); return; }
  const run = model.run;
  if (!run || run.stopping) return;
  run.stopping = true;
  run.controller.abort();
  cancelLease(run);
  renderRunning();
}

function cancelLease(run) {
  fetch(`/api/_/leases/${run.key}`, { method: "DELETE", credentials: "same-origin", keepalive: true })
    .catch(() => { run.lost = true; if (model.run === run) renderRunning(); });
}

/** Keeps a phone's screen on while a drill runs (a page the phone freezes stops renewing: the drill stops). */
function keepAwake(run) {
  if (!navigator.wakeLock) return;
  navigator.wakeLock.request("screen").then((lock) => {
    if (model.run === run) run.wake = lock; else lock.release().catch(() => {});
  }).catch(() => {});
}

/** Stop for a drill started elsewhere: the plugin stops that run (and no later one). */
async function stopRemote(remote) {
  if (remote.stopping) return;
  remote.stopping = true;
  renderRunning();
  try {
    const answer = await call("POST", `${api}/stop`, { body: { run: remote.run } });
    if (!answer.stopped && model.remote === remote) endRemote(null);   // it had ended meanwhile
  } catch (error) {
    remote.stopping = false;
    model.drillError = error;
  }
  render();
}

/** A drill started elsewhere has ended (`d`: its `drill` event, null when only `running` says so). */
function endRemote(d) {
  const remote = model.remote;
  if (!remote) return;
  const launched = d ? d.launched : Math.max(remote.count, remote.launched.length);
  const text = d && d.stopped === "another client"
    ? `Stopped after ${launched} of ${remote.of} balls (the drill was started elsewhere).`
    : d && d.stopped
      ? `Stopped by the client that started it after ${launched} of ${remote.of} balls.`
      : `${launched} of ${remote.of} balls launched (the drill was started elsewhere)${d && d.outcome ? `; ended: ${d.outcome}` : ""}.`;
  model.last = { name: remote.name, text, launches: remote.launched };
  model.remote = null;
}

function onDrill(event) {
  const d = event.data;
  if (!d || model.run) return;   // this page's own drill: its call's reply says how it ended
  if (d.state === "started") {
    model.remote = { run: d.run, name: d.drill, of: d.of, launched: [], count: d.launched || 0, stopping: !!d.stopRequested };
    model.last = null;
    model.aim = null;
    model.balls = [];
  } else if (d.state === "ended" && model.remote && model.remote.run === d.run) {
    endRemote(d);
    loadSessions().then(render);
  }
  render();
}

function onEvent(event) {
  if (event.topic === "clubhouse.missed") { loadRunning().then(render); return; }
  if (event.topic === "drill") onDrill(event);
  else onLaunch(event);
}

function onLaunch(event) {
  const d0 = event.data;
  if (!model.run && d0 && (!model.remote || model.remote.run !== d0.run) && d0.run != null) {
    // A launch of a drill started elsewhere whose start this page missed.
    model.remote = { run: d0.run, name: d0.drill, of: d0.of, launched: [], count: 0, stopping: false };
    model.last = null;
    model.balls = [];
  }
  if (!model.run && model.remote && d0 && d0.run === model.remote.run) {
    const remote = model.remote;
    if (remote.launched.some((l) => l.ball === d0.ball)) return;
    remote.launched.push({ ball: d0.ball, of: d0.of, zone: d0.zone, speed: mph(d0.speed), spin: d0.spin });
    remote.count = Math.max(remote.count, d0.ball);
    model.balls.push({ n: d0.ball, at: zoneCentre(d0.zone), state: "launched" });
    render();
    return;
  }
  const run = model.run;
  if (!run || !d0 || d0.drill !== run.name) return;
  const d = d0;
  if (run.launched.some((l) => l.ball === d.ball)) return;
  run.launched.push({ ball: d.ball, of: d.of, zone: d.zone, speed: mph(d.speed), spin: d.spin });
  const mark = model.balls.find((b) => b.n === d.ball);
  if (mark) mark.state = "launched";
  render();
}

// ---- views ----------------------------------------------------------------------------------------

function launchLine(l) {
  return `Ball ${l.ball} of ${l.of} → ${zoneWords(l.zone)}, ${l.speed} mph ${spinName(l.spin)}`;
}

function renderControls() {
  document.getElementById("speed-out").textContent = `${model.speed} mph`;
  const speed = document.getElementById("speed");
  speed.value = String(model.speed);
  speed.disabled = !!model.run || !!model.remote;
  const choices = document.getElementById("spin-choices");
  if (choices.dataset.spins !== model.spins.join(",")) {
    choices.dataset.spins = model.spins.join(",");
    choices.replaceChildren(...model.spins.map((spin) => el("label", { class: "choice" },
      el("input", { type: "radio", name: "spin", value: spin, onchange: () => { model.spin = spin; render(); } }), capitalized(spinName(spin)))));
  }
  for (const input of choices.querySelectorAll("input")) {
    input.checked = input.value === model.spin;
    input.disabled = !!model.run || !!model.remote;
  }
}

function renderCourt() {
  const svg = document.getElementById("court");
  const active = document.activeElement;
  const focused = active && active.dataset && active.dataset.zone !== undefined ? Number(active.dataset.zone) : null;
  drawCourt(svg, { aim: model.aim, busy: !!model.run || !!model.remote || model.sending, balls: model.balls, focusZone: model.focusZone }, {
    onZoneKey: (zone) => { model.focusZone = zone; fire(zoneCentre(zone)); },
    onZoneMove: (zone) => {
      model.focusZone = zone;
      renderCourt();
      const next = svg.querySelector(`[data-zone="${zone}"]`);
      if (next) next.focus();
    } });
  svg.classList.toggle("busy", !!model.run || !!model.remote || model.sending);
  svg.dataset.zones = "16";
  if (focused !== null) {
    const again = svg.querySelector(`[data-zone="${focused}"]`);
    if (again) again.focus();
  }
  document.getElementById("shot").textContent = model.run || model.remote ? "A drill is running: Stop it to aim by hand." : model.shot;
  showError(document.getElementById("court-error"), model.courtError);
}

function renderDrills() {
  const list = document.getElementById("drills");
  if (model.drills === null) return;
  list.replaceChildren(...(model.drills.length ? model.drills.map((d) => el("li", { class: "drill" },
    el("div", {}, el("strong", {}, d.name), el("span", { class: "muted" }, ` ${d.balls} balls · ${d.hash.slice(0, 8)}`)),
    el("button", { type: "button", class: "primary", "data-drill": d.name, "aria-label": `Run the drill ${d.name}`,
      disabled: !!model.run || !!model.remote || model.sending || !!model.starting, onclick: () => runDrill(d.name) }, "Run")))
    : [el("li", { class: "muted" }, "No drills saved at this site yet: clubhouse tennis drill save FILE.json")]));
  showError(document.getElementById("drill-error"), model.drillError);
  const panel = document.getElementById("run-panel");
  const live = model.run || model.remote;
  const shown = live || model.last;
  panel.hidden = !shown;
  if (!shown) return;
  document.getElementById("run-title").textContent = model.run ? `Running “${model.run.name}”`
    : model.remote ? `Running “${model.remote.name}” (started elsewhere)` : `Last drill: “${model.last.name}”`;
  document.getElementById("run-summary").textContent = model.run
    ? `${model.run.launched.length} of ${model.run.of} balls launched`
    : model.remote ? `${Math.max(model.remote.count, model.remote.launched.length)} of ${model.remote.of} balls launched` : model.last.text;
  const launches = live ? live.launched : model.last.launches;
  const ol = document.getElementById("launches");
  if (ol.children.length !== launches.length || !live) ol.replaceChildren(...launches.map((l) => el("li", { "data-ball": l.ball }, launchLine(l))));
}

function renderRunning() {
  const bar = document.getElementById("running");
  const run = model.run;
  const remote = !run && model.remote;
  bar.hidden = !run && !remote;
  document.body.classList.toggle("drill-running", !bar.hidden);
  const button = document.getElementById("stop");
  if (remote) {
    const last = remote.launched[remote.launched.length - 1];
    document.getElementById("running-text").textContent = remote.stopping ? `Stopping “${remote.name}”…`
      : `“${remote.name}”, started elsewhere: ` + (last ? launchLine(last) : `${remote.count} of ${remote.of} balls launched`);
    button.textContent = remote.stopping ? "Stopping…" : "Stop";
    button.setAttribute("aria-label", remote.stopping ? "Stopping the ball machine" : `Stop the ball machine now (the drill ${remote.name}, started elsewhere)`);
    return;
  }
  if (!run) return;
  const last = run.launched[run.launched.length - 1];
  let text = run.stopping ? "Stopping the machine…" : last ? launchLine(last) : `“${run.name}”: the first ball is on its way`;
  if (run.lost) text += " — the host cannot be reached: the machine stops by itself within 5 s";
  document.getElementById("running-text").textContent = text;
  button.textContent = run.stopping ? "Stopping…" : "Stop";
  button.setAttribute("aria-label", run.stopping ? "Stopping the ball machine" : "Stop the ball machine now");
}

function renderSessions() {
  if (model.sessions === null) return;
  document.getElementById("sessions").replaceChildren(...(model.sessions.length ? model.sessions.map((s) => {
    const what = s.drill ? `drill “${s.drill}”` : s.mode;
    const sum = s.summary;
    return el("li", { "data-session": s.id }, el("strong", {}, `Session ${s.id}`),
      ` · ${what} · ${sum.launches} launch${sum.launches === 1 ? "" : "es"}, ${sum.completed} completed`,
      sum.aborted ? ` · ended: ${sum.aborted}` : "", el("span", { class: "muted" }, ` · ${String(s.startedAt).replace("T", " ").slice(0, 16)}`));
  }) : [el("li", { class: "muted" }, "No sessions yet.")]));
}

function renderLive() {
  const live = document.getElementById("live");
  live.textContent = model.live === "open" ? "● Live" : model.live === "connecting" ? "○ Connecting…" : "○ Offline";
  live.dataset.state = model.live;
}

function render() {
  renderControls();
  renderCourt();
  renderDrills();
  renderRunning();
  renderSessions();
  renderLive();
}

// ---- start ----------------------------------------------------------------------------------------

function wire() {
  const svg = document.getElementById("court");
  let down = null;
  svg.addEventListener("pointerdown", (event) => { down = { x: event.clientX, y: event.clientY, id: event.pointerId }; });
  svg.addEventListener("pointerup", (event) => {
    if (!down || down.id !== event.pointerId) return;
    const moved = Math.hypot(event.clientX - down.x, event.clientY - down.y);
    down = null;
    if (moved > 12 || model.run || model.remote || model.sending) return;
    const point = courtPoint(svg, event);
    if (point) fire(point);
  });
  svg.addEventListener("pointercancel", () => { down = null; });
  document.getElementById("speed").addEventListener("input", (event) => { model.speed = Number(event.target.value); renderControls(); });
  document.getElementById("stop").addEventListener("click", stop);
  // Leaving the page stops a running drill: its connection closes; the lease is cancelled as well.
  window.addEventListener("pagehide", () => { if (model.run) cancelLease(model.run); });
}

async function boot() {
  wire();
  render();
  subscribe("tennis", ["launch", "drill"], onEvent, { onState: (state) => { model.live = state; renderLive(); } });
  try { await loadTable(); } catch (error) { model.courtError = error; }
  await Promise.all([loadDrills(), loadSessions(), loadRunning()]);
  render();
  performance.mark("clubhouse:rendered");   // the first full view (the browser tests report it)
}

boot();

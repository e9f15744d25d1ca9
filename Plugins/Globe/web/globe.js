// The globe panel: an orthographic globe drawn in a canvas from the plugin's world map (map.svg,
// equirectangular, coloured by the traveller's marks), spun by drag (east is to the right), a tap
// names the country under it (the plugin's `where`) to mark visited / wish / clear; stats per
// continent; the daily challenge with its month calendar (future days locked) and five guesses.
import { call, el, showError } from "/ui/_/clubhouse.js";

const api = "/api/globe";
const canvas = document.getElementById("globe");
const context = canvas.getContext("2d");
const errorLine = document.getElementById("error");
const challengeError = document.getElementById("challenge-error");
const rad = Math.PI / 180;
const southernEdge = -60;   // the map stops at 60° S (the plugin's map leaves Antarctica out)

const model = {
  lon0: 10, lat0: 30,       // the globe's centre
  texture: null,            // {width, height, pixels}
  picked: null,             // {code, name, status}
  countries: new Map(),     // code → {name, status, capital}
  challenge: null, calendar: null, date: null,
};

// ---- the globe -----------------------------------------------------------------------------------

async function loadTexture() {
  const width = 2048;
  const text = await call("GET", `${api}/map.svg`, { query: { width }, accept: "image/svg+xml" });
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const height = Math.round(width * (90 - southernEdge) / 360);
    const offscreen = document.createElement("canvas");
    offscreen.width = width; offscreen.height = height;
    const c = offscreen.getContext("2d", { willReadFrequently: true });
    c.drawImage(image, 0, 0, width, image.naturalHeight * (width / image.naturalWidth));
    model.texture = { width, height, pixels: c.getImageData(0, 0, width, height).data };
  } finally {
    URL.revokeObjectURL(url);
  }
}

function size() {
  const css = canvas.clientWidth || 360;
  const pixels = Math.min(720, Math.round(css * Math.min(2, window.devicePixelRatio || 1)));
  if (canvas.width !== pixels) { canvas.width = pixels; canvas.height = pixels; }
  return pixels;
}

// Screen point (−1…1, y up) → latitude/longitude in degrees on the orthographic globe, or null.
function inverse(x, y) {
  const rho = Math.hypot(x, y);
  if (rho > 1) return null;
  const c = Math.asin(rho);
  const phi0 = model.lat0 * rad;
  const sinC = Math.sin(c), cosC = Math.cos(c);
  const lat = rho === 0 ? phi0 : Math.asin(cosC * Math.sin(phi0) + (y * sinC * Math.cos(phi0)) / rho);
  const lon = model.lon0 * rad + Math.atan2(x * sinC, rho * cosC * Math.cos(phi0) - y * sinC * Math.sin(phi0));
  let degrees = lon / rad;
  degrees = ((degrees + 540) % 360) - 180;
  return { lat: lat / rad, lon: degrees };
}

function draw() {
  const n = size();
  const image = context.createImageData(n, n);
  const data = image.data;
  const t = model.texture;
  const r = n / 2;
  for (let py = 0; py < n; py++) {
    for (let px = 0; px < n; px++) {
      const x = (px + 0.5 - r) / r, y = (r - py - 0.5) / r;
      const o = (py * n + px) * 4;
      const p = inverse(x, y);
      if (!p) continue;   // transparent outside the disc
      let rgb = [47, 134, 166];   // ocean #2F86A6
      if (t && p.lat > southernEdge) {
        const tx = Math.min(t.width - 1, Math.floor((p.lon + 180) / 360 * t.width));
        const ty = Math.min(t.height - 1, Math.floor((90 - p.lat) / (90 - southernEdge) * t.height));
        const q = (ty * t.width + tx) * 4;
        rgb = [t.pixels[q], t.pixels[q + 1], t.pixels[q + 2]];
      } else if (p.lat <= southernEdge) {
        rgb = [226, 232, 236];   // the far south, not on the map: ice
      }
      // A little shading towards the limb, so the sphere reads as one.
      const light = 0.72 + 0.28 * Math.sqrt(Math.max(0, 1 - x * x - y * y));
      data[o] = rgb[0] * light; data[o + 1] = rgb[1] * light; data[o + 2] = rgb[2] * light; data[o + 3] = 255;
    }
  }
  context.putImageData(image, 0, 0);
  // The centre drawn, for tests and for a screen reader's description.
  canvas.dataset.center = `${model.lon0.toFixed(3)},${model.lat0.toFixed(3)}`;
  if (t) canvas.dataset.ready = "1";
  context.strokeStyle = "#1b3b4a";
  context.lineWidth = Math.max(1, n / 300);
  context.beginPath();
  context.arc(r, r, r - context.lineWidth / 2, 0, 2 * Math.PI);
  context.stroke();
}

let frame = 0;
function redraw() {
  if (frame) return;
  frame = requestAnimationFrame(() => { frame = 0; draw(); });
}

// Drag spins (the point under the finger follows it); a tap (little movement) picks a country.
let drag = null;
canvas.addEventListener("pointerdown", (event) => {
  canvas.setPointerCapture(event.pointerId);
  drag = { x: event.clientX, y: event.clientY, lon0: model.lon0, lat0: model.lat0, moved: 0 };
});
canvas.addEventListener("pointermove", (event) => {
  if (!drag) return;
  const radius = canvas.clientWidth / 2;
  const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
  drag.moved = Math.max(drag.moved, Math.hypot(dx, dy));
  model.lon0 = drag.lon0 - (dx / radius) / rad;
  model.lat0 = Math.max(-89, Math.min(89, drag.lat0 + (dy / radius) / rad));
  redraw();
});
const release = (event) => {
  if (!drag) return;
  const tapped = drag.moved < 6;
  drag = null;
  if (tapped && event.type === "pointerup") pick(event.clientX, event.clientY);
};
canvas.addEventListener("pointerup", release);
canvas.addEventListener("pointercancel", release);
canvas.addEventListener("keydown", (event) => {
  const steps = { ArrowLeft: [-10, 0], ArrowRight: [10, 0], ArrowUp: [0, 10], ArrowDown: [0, -10] };
  const step = steps[event.key];
  if (!step) return;
  event.preventDefault();
  model.lon0 += step[0];
  model.lat0 = Math.max(-89, Math.min(89, model.lat0 + step[1]));
  redraw();
});
canvas.tabIndex = 0;

async function pick(clientX, clientY) {
  const box = canvas.getBoundingClientRect();
  const r = box.width / 2;
  const p = inverse((clientX - box.left - r) / r, (box.top + r - clientY) / r);
  if (!p) return;
  try {
    const found = await call("GET", `${api}/where`, { query: { lat: p.lat.toFixed(3), lon: p.lon.toFixed(3) } });
    const known = model.countries.get(found.code);
    model.picked = found.code ? { code: found.code, name: found.name, status: known ? known.status : "none" } : null;
    showError(errorLine, null);
  } catch (error) {
    model.picked = null;
    showError(errorLine, error);
  }
  renderPicked();
}

function renderPicked() {
  const p = model.picked;
  const name = document.getElementById("picked-name");
  const words = { visited: "visited", wishlist: "on the wish list", none: "not visited yet" };
  name.replaceChildren(p ? el("strong", { "data-code": p.code }, p.name) : el("strong", {}, "Open sea: tap a country"),
    p ? ` · ${words[p.status] || p.status}` : "");
  for (const id of ["mark-visited", "mark-wish", "mark-clear"]) document.getElementById(id).disabled = !p;
}

async function mark(kind) {
  const p = model.picked;
  if (!p) return;
  try {
    if (kind === "visited") await call("POST", `${api}/visits`, { body: { country: p.code } });
    if (kind === "wish") await call("POST", `${api}/wishes`, { body: { country: p.code } });
    if (kind === "clear") {
      if (p.status === "visited") await call("DELETE", `${api}/visits/${p.code}`);
      if (p.status === "wishlist") await call("DELETE", `${api}/wishes/${p.code}`);
    }
    await Promise.all([loadCountries(), loadTexture(), loadStats()]);
    const known = model.countries.get(p.code);
    model.picked = { ...p, status: known ? known.status : "none" };
    renderPicked();
    redraw();
    showError(errorLine, null);
  } catch (error) {
    showError(errorLine, error);
  }
}
// Without dragging (a keyboard, a screen reader): a country found by its name or code.
function findCountry(text) {
  const wanted = text.trim().toLowerCase();
  const all = [...model.countries.values()];
  return all.find((c) => c.name.toLowerCase() === wanted || c.code.toLowerCase() === wanted)
    || (() => { const starts = all.filter((c) => c.name.toLowerCase().startsWith(wanted)); return starts.length === 1 ? starts[0] : null; })();
}

document.getElementById("find-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("find");
  const text = input.value.trim();
  const findError = document.getElementById("find-error");
  if (!text) return;
  const found = findCountry(text);
  if (!found) {
    showError(findError, { message: `no country named '${text}'; type a few letters and pick one from the list` });
    return;
  }
  showError(findError, null);
  input.value = "";
  model.picked = { code: found.code, name: found.name, status: found.status || "none" };
  renderPicked();
  document.getElementById("mark-visited").focus();
});

document.getElementById("mark-visited").addEventListener("click", () => mark("visited"));
document.getElementById("mark-wish").addEventListener("click", () => mark("wish"));
document.getElementById("mark-clear").addEventListener("click", () => mark("clear"));

// ---- lists and stats -----------------------------------------------------------------------------

async function loadCountries() {
  const reply = await call("GET", `${api}/countries`);
  model.countries = new Map((reply.countries || []).map((c) => [c.code, c]));
  const countryNames = document.getElementById("country-names");
  if (!countryNames.children.length) {
    countryNames.replaceChildren(...[...model.countries.values()].map((c) => c.name).sort().map((n) => el("option", { value: n })));
  }
  const names = document.getElementById("names");
  if (!names.children.length) {
    const all = new Set();
    for (const c of model.countries.values()) { all.add(c.name); if (c.capital) all.add(c.capital); }
    names.replaceChildren(...[...all].sort().map((n) => el("option", { value: n })));
  }
}

async function loadStats() {
  const s = await call("GET", `${api}/stats`);
  document.getElementById("stats-total").textContent = `${s.visited} of ${s.total} (${s.percent} %) · ${s.denominatorTitle} · wish list ${s.wishlist}`;
  document.querySelector("#stats tbody").replaceChildren(...(s.continents || []).map((c) =>
    el("tr", {}, el("td", {}, c.continent), el("td", { class: "num" }, c.visited), el("td", { class: "num" }, c.total))));
}

// ---- the daily challenge -------------------------------------------------------------------------

async function loadChallenge(date) {
  const [calendar, challenge] = await Promise.all([
    call("GET", `${api}/challenge/calendar`), call("GET", `${api}/challenge`, { query: { date } })]);
  model.calendar = calendar;
  model.challenge = challenge;
  model.date = challenge.date;
  renderChallenge();
}

function renderChallenge() {
  const today = new Date().toISOString().slice(0, 10);
  const days = model.calendar ? model.calendar.days : [];
  const first = days.length ? new Date(`${days[0].date}T00:00:00Z`).getUTCDay() : 0;
  const blanks = Array.from({ length: (first + 6) % 7 }, () => el("span", { "aria-hidden": "true" }));
  const weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((w) => el("span", { class: "weekday", "aria-hidden": "true" }, w.slice(0, 2)));
  document.getElementById("calendar").replaceChildren(...weekdays, ...blanks, ...days.map((d) => {
    const day = Number(d.date.slice(8));
    const locked = d.mark === "locked";
    const label = `${d.date}: ${locked ? "locked" : d.mark}`;
    return el("button", { type: "button", class: `${d.mark}${d.date === today ? " today" : ""}`, disabled: locked, "aria-label": label,
      "aria-pressed": d.date === model.date ? "true" : "false", onclick: () => guard(() => loadChallenge(d.date)) },
      d.mark === "solved" ? `${day}✓` : d.mark === "failed" ? `${day}✗` : String(day));
  }));
  const c = model.challenge;
  document.getElementById("prompt").textContent = c ? c.prompt : "";
  const playing = c && c.status === "playing";
  document.getElementById("guess").disabled = !playing;
  document.getElementById("guess-button").disabled = !playing;
  const list = (c && c.guesses) || [];
  document.getElementById("guesses").replaceChildren(...list.map((g, i) => {
    const right = c.status === "solved" && i === list.length - 1;
    return el("li", { class: right ? "right" : "wrong" }, `${typeof g === "string" ? g : g.text || g.guess} — ${right ? "right" : "wrong"}`);
  }), ...(c && c.status !== "playing" ? [el("li", { class: c.status === "solved" ? "right" : "wrong" }, c.status === "solved" ? "Solved!" : `Out of tries${c.answer ? `: ${c.answer}` : ""}`)] : []),
  ...(playing ? [el("li", { class: "muted" }, `${c.attemptsLeft} ${c.attemptsLeft === 1 ? "try" : "tries"} left`)] : []));
}

document.getElementById("guess-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("guess");
  const text = input.value.trim();
  if (!text) return;
  try {
    await call("POST", `${api}/challenge/guesses`, { body: { text, date: model.date } });
    input.value = "";
    showError(challengeError, null);
    await loadChallenge(model.date);
  } catch (error) {
    showError(challengeError, error);
  }
});

async function guard(work) {
  try { await work(); } catch (error) { showError(challengeError, error); }
}

async function boot() {
  draw();
  try {
    await Promise.all([loadTexture(), loadCountries(), loadStats()]);
    draw();
    performance.mark("clubhouse:rendered");
  } catch (error) {
    showError(errorLine, error);
  }
  await guard(() => loadChallenge());
}

window.addEventListener("resize", redraw);
boot();

// The putting panel: course → hole → the green drawn from its heightfield (elevation shading, contour
// lines, a 5 ft grid, the cup), a draggable ball and flag (pointer events: one path for touch and
// mouse; arrow keys too), and on release the plugin's best line: aim, speed, make probability, result.
// Coordinates are the plugin's: feet from the green's centre, +x east, +z north. In the SVG, y = −z.
import { call, el, showError } from "/ui/_/clubhouse.js";

const api = "/api/putting";
const svgNS = "http://www.w3.org/2000/svg";
const green = document.getElementById("green");
const errorLine = document.getElementById("error");
const state = document.getElementById("state");

const model = {
  courses: [], holes: [], course: "", hole: 0, stimp: 10,
  field: null,            // {nx, nz, res, xMin, zMin, heights: Float32Array}
  ball: { x: -10, z: 5 },
  flag: { x: 0, z: 0 },
  line: null,             // the bestLine reply
  pending: null,          // AbortController of the request in flight
};

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

const tenth = (v) => Math.round(v * 10) / 10;
const feet = (p) => `${p.x.toFixed(1)}, ${p.z.toFixed(1)} ft`;

// ---- the green's picture (drawn once per hole) ---------------------------------------------------

function shading(field) {
  const { nx, nz, heights } = field;
  let lo = Infinity, hi = -Infinity;
  for (const h of heights) { if (Number.isFinite(h)) { lo = Math.min(lo, h); hi = Math.max(hi, h); } }
  const span = hi - lo || 1;
  const canvas = document.createElement("canvas");
  canvas.width = nx; canvas.height = nz;
  const context = canvas.getContext("2d");
  const image = context.createImageData(nx, nz);
  const at = (ix, iz) => heights[Math.min(nz - 1, Math.max(0, iz)) * nx + Math.min(nx - 1, Math.max(0, ix))];
  for (let iz = 0; iz < nz; iz++) {
    for (let ix = 0; ix < nx; ix++) {
      const h = at(ix, iz);
      const t = (h - lo) / span;
      // Hill shade: light from the north-west, slopes exaggerated so a 2 % slope shows.
      const dx = (at(ix + 1, iz) - at(ix - 1, iz)) / (2 * field.res);
      const dz = (at(ix, iz + 1) - at(ix, iz - 1)) / (2 * field.res);
      const shade = Math.max(-1, Math.min(1, (-dx + dz) * 12)) * 0.22;
      const base = [120 + 95 * t, 170 + 55 * t, 90 + 30 * t];
      const o = ((nz - 1 - iz) * nx + ix) * 4;   // image rows run north to south
      for (let c = 0; c < 3; c++) image.data[o + c] = Math.max(0, Math.min(255, base[c] * (1 + shade)));
      image.data[o + 3] = 255;
    }
  }
  context.putImageData(image, 0, 0);
  return { url: canvas.toDataURL("image/png"), lo, hi };
}

// Marching squares: the contour lines of the heightfield at `levels`, as one path in SVG coordinates.
function contours(field, levels) {
  const { nx, nz, res, xMin, zMin, heights } = field;
  const parts = [];
  const X = (ix) => xMin + ix * res;
  const Y = (iz) => -(zMin + iz * res);
  for (const level of levels) {
    for (let iz = 0; iz < nz - 1; iz++) {
      for (let ix = 0; ix < nx - 1; ix++) {
        const a = heights[iz * nx + ix], b = heights[iz * nx + ix + 1];
        const c = heights[(iz + 1) * nx + ix + 1], d = heights[(iz + 1) * nx + ix];
        const points = [];
        const edge = (h1, h2, x1, y1, x2, y2) => {
          if ((h1 < level) !== (h2 < level)) {
            const t = (level - h1) / (h2 - h1);
            points.push([x1 + (x2 - x1) * t, y1 + (y2 - y1) * t]);
          }
        };
        edge(a, b, X(ix), Y(iz), X(ix + 1), Y(iz));
        edge(b, c, X(ix + 1), Y(iz), X(ix + 1), Y(iz + 1));
        edge(c, d, X(ix + 1), Y(iz + 1), X(ix), Y(iz + 1));
        edge(d, a, X(ix), Y(iz + 1), X(ix), Y(iz));
        for (let k = 0; k + 1 < points.length; k += 2) {
          parts.push(`M${points[k][0].toFixed(2)} ${points[k][1].toFixed(2)}L${points[k + 1][0].toFixed(2)} ${points[k + 1][1].toFixed(2)}`);
        }
      }
    }
  }
  return parts.join("");
}

let layers = null;

function drawGreen() {
  green.replaceChildren();
  const f = model.field;
  if (!f) return;
  const width = f.nx * f.res, height = f.nz * f.res;
  const left = f.xMin - f.res / 2, top = -(f.zMin + (f.nz - 1) * f.res) - f.res / 2;
  green.setAttribute("viewBox", `${left} ${top} ${width} ${height}`);
  const picture = shading(f);
  const interval = niceInterval((picture.hi - picture.lo) / 8);
  const levels = [];
  for (let v = Math.ceil(picture.lo / interval) * interval; v < picture.hi; v += interval) levels.push(v);
  const grid = svg("g", { "aria-hidden": "true" });
  for (let x = Math.ceil(left / 5) * 5; x <= left + width; x += 5) grid.append(svg("line", { class: x === 0 ? "grid axis" : "grid", x1: x, x2: x, y1: top, y2: top + height }));
  for (let y = Math.ceil(top / 5) * 5; y <= top + height; y += 5) grid.append(svg("line", { class: y === 0 ? "grid axis" : "grid", y1: y, y2: y, x1: left, x2: left + width }));
  layers = {
    path: svg("polyline", { class: "path", id: "best-path" }),
    aim: svg("line", { class: "aim", id: "aim-line" }),
    // Markers are drawn in screen pixels (scaled in place()), so they stay finger-sized on any green.
    flag: handle("flag", "Flag", [
      svg("circle", { class: "hit", r: 22, fill: "transparent" }),
      svg("circle", { r: 5, fill: "#111", stroke: "#fff", "stroke-width": 1.5 }),
      svg("line", { x1: 0, y1: 0, x2: 0, y2: -34, stroke: "#222", "stroke-width": 2 }),
      svg("path", { d: "M0 -34 L18 -29 L0 -24 Z", fill: "#d01010", stroke: "#600", "stroke-width": 1 }),
      svg("circle", { class: "ring", r: 12, fill: "none", stroke: "#d01010", "stroke-width": 2 })]),
    ball: handle("ball", "Ball", [
      svg("circle", { class: "hit", r: 22, fill: "transparent" }),
      svg("circle", { r: 7, fill: "#fff", stroke: "#111", "stroke-width": 2 }),
      svg("circle", { class: "ring", r: 12, fill: "none", stroke: "#111", "stroke-width": 1.5 })]),
  };
  green.append(
    svg("image", { href: picture.url, x: left, y: top, width, height, preserveAspectRatio: "none" }),
    svg("path", { class: "contour", d: contours(f, levels) }),
    grid, layers.aim, layers.path, layers.flag, layers.ball);
  place();
}

function niceInterval(raw) {
  const power = 10 ** Math.floor(Math.log10(raw || 0.1));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * power) return m * power;
  return 10 * power;
}

// A draggable marker: pointer events (touch, pen and mouse alike) and arrow keys (0.5 ft a press).
function handle(which, label, children) {
  const group = svg("g", { class: "handle", id: which, tabindex: 0, role: "slider", "aria-label": `${label} position` }, ...children);
  let dragging = false;
  group.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    dragging = true;
    group.setPointerCapture(event.pointerId);
    group.classList.add("dragging");
    cancelPending();
    group.focus();
  });
  group.addEventListener("pointermove", (event) => {
    if (!dragging) return;
    const p = toGreen(event.clientX, event.clientY);
    model[which] = clampToGreen(p);
    model.line = null;
    place();
  });
  const release = (event) => {
    if (!dragging) return;
    dragging = false;
    group.classList.remove("dragging");
    if (group.hasPointerCapture(event.pointerId)) group.releasePointerCapture(event.pointerId);
    settle();
  };
  group.addEventListener("pointerup", release);
  group.addEventListener("pointercancel", release);
  group.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: [-0.5, 0], ArrowRight: [0.5, 0], ArrowUp: [0, 0.5], ArrowDown: [0, -0.5] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    model[which] = clampToGreen({ x: model[which].x + move[0], z: model[which].z + move[1] });
    model.line = null;
    place();
    settle();
  });
  return group;
}

function toGreen(clientX, clientY) {
  const point = green.createSVGPoint();
  point.x = clientX; point.y = clientY;
  const p = point.matrixTransform(green.getScreenCTM().inverse());
  return { x: p.x, z: -p.y };
}

function clampToGreen(p) {
  const f = model.field;
  if (!f) return p;
  const xMax = f.xMin + (f.nx - 1) * f.res, zMax = f.zMin + (f.nz - 1) * f.res;
  return { x: Math.min(xMax, Math.max(f.xMin, p.x)), z: Math.min(zMax, Math.max(f.zMin, p.z)) };
}

// Positions of the markers, the line and the readout, from the model.
function place() {
  if (!layers) return;
  const f = model.field;
  const scale = f && green.clientWidth ? (f.nx * f.res) / green.clientWidth : 0.1;   // feet per screen pixel
  layers.ball.setAttribute("transform", `translate(${model.ball.x} ${-model.ball.z}) scale(${scale})`);
  layers.flag.setAttribute("transform", `translate(${model.flag.x} ${-model.flag.z}) scale(${scale})`);
  layers.ball.setAttribute("aria-valuetext", feet(model.ball));
  layers.flag.setAttribute("aria-valuetext", feet(model.flag));
  const line = model.line;
  if (line) {
    layers.path.setAttribute("points", line.pathXFt.map((x, i) => `${x.toFixed(2)},${(-line.pathZFt[i]).toFixed(2)}`).join(" "));
    const reach = Math.max(2, line.distanceFt || 0);
    const heading = Math.atan2(line.v0ZFps, line.v0XFps);
    layers.aim.setAttribute("x1", model.ball.x); layers.aim.setAttribute("y1", -model.ball.z);
    layers.aim.setAttribute("x2", model.ball.x + reach * Math.cos(heading));
    layers.aim.setAttribute("y2", -(model.ball.z + reach * Math.sin(heading)));
    layers.aim.removeAttribute("visibility");
  } else {
    layers.path.setAttribute("points", "");
    layers.aim.setAttribute("visibility", "hidden");
  }
  readout();
}

function readout() {
  const line = model.line;
  const set = (id, text) => { document.getElementById(id).textContent = text; };
  set("ball-at", feet(model.ball));
  set("flag-at", feet(model.flag));
  const distance = Math.hypot(model.flag.x - model.ball.x, model.flag.z - model.ball.z);
  set("distance", `${distance.toFixed(1)} ft`);
  if (!line) {
    for (const id of ["aim", "speed", "make", "outcome"]) set(id, "–");
    set("summary", `${distance.toFixed(1)} ft · drag the ball or the flag`);
    return;
  }
  const side = Math.abs(line.aimOffsetIn) < 0.05 ? "straight at the hole" : `${Math.abs(line.aimOffsetIn).toFixed(1)} in ${line.aimSide || (line.aimOffsetIn > 0 ? "left" : "right")}`;
  set("aim", `${side} (${Math.abs(line.aimOffsetDeg).toFixed(1)}°)`);
  document.getElementById("aim").dataset.deg = String(line.aimOffsetDeg);
  set("speed", `${line.speedFps.toFixed(2)} ft/s`);
  document.getElementById("speed").dataset.fps = String(line.speedFps);
  set("make", line.makeProbability === undefined ? "–" : `${Math.round(line.makeProbability * 100)} %`);
  set("outcome", line.holed ? "holed" : `misses by ${line.missFt.toFixed(1)} ft`);
  set("summary", `Aim ${document.getElementById("aim").textContent} · ${line.speedFps.toFixed(1)} ft/s · make ${document.getElementById("make").textContent}`);
}

// ---- the best line -------------------------------------------------------------------------------

function cancelPending() {
  if (model.pending) model.pending.abort();
  model.pending = null;
}

async function settle() {
  // Positions are sent to a tenth of a foot, as shown: the CLI's answer for the shown numbers is the same.
  model.ball = { x: tenth(model.ball.x), z: tenth(model.ball.z) };
  model.flag = { x: tenth(model.flag.x), z: tenth(model.flag.z) };
  place();
  cancelPending();
  const controller = new AbortController();
  model.pending = controller;
  state.textContent = "Reading the green…";
  const started = performance.now();
  green.setAttribute("aria-busy", "true");
  try {
    const reply = await call("POST", `${api}/courses/${encodeURIComponent(model.course)}/holes/${model.hole}/bestline`, {
      body: { ball: [model.ball.x, model.ball.z], flag: [model.flag.x, model.flag.z], stimp: model.stimp }, signal: controller.signal });
    if (model.pending !== controller) return;
    model.line = reply.bestLine;
    place();
    // From release to the line drawn (the browser tests report the median).
    performance.measure("clubhouse:bestline", { start: started });
    showError(errorLine, null);
    state.textContent = `${reply.cached ? "From the cache" : "Computed"} · ${model.line.simulations || 0} rolls simulated`;
  } catch (error) {
    if (error.status === "cancelled") return;
    model.line = null;
    showError(errorLine, error);
    state.textContent = "";
  } finally {
    if (model.pending === controller) { model.pending = null; green.removeAttribute("aria-busy"); }
  }
  place();
}

// ---- course and hole -----------------------------------------------------------------------------

async function loadCourses() {
  const reply = await call("GET", `${api}/courses`);
  model.courses = reply.courses || [];
  const select = document.getElementById("course");
  select.replaceChildren(...model.courses.map((c) => el("option", { value: c.id }, c.name || c.id)));
  const wanted = new URLSearchParams(location.hash.slice(1));
  model.course = wanted.get("course") && model.courses.some((c) => c.id === wanted.get("course")) ? wanted.get("course") : (model.courses[0] || {}).id || "";
  select.value = model.course;
  if (!model.course) { showError(errorLine, { message: "no courses yet: import one with clubhouse putting course import (or try clubhouse putting demo)" }); return; }
  await loadHoles(Number(wanted.get("hole")) || 0);
}

async function loadHoles(wantedHole) {
  const reply = await call("GET", `${api}/courses/${encodeURIComponent(model.course)}/holes`);
  model.holes = (reply.holes || []).filter((h) => h.status !== "source");
  const select = document.getElementById("hole");
  select.replaceChildren(...model.holes.map((h) => el("option", { value: h.hole }, `Hole ${h.hole}`)));
  const hole = model.holes.find((h) => h.hole === wantedHole) || model.holes[0];
  if (!hole) return;
  select.value = String(hole.hole);
  await loadHole(hole);
}

async function loadHole(hole) {
  model.hole = hole.hole;
  history.replaceState(null, "", `#course=${encodeURIComponent(model.course)}&hole=${model.hole}`);
  const base = `${api}/courses/${encodeURIComponent(model.course)}/holes/${model.hole}`;
  const [meta, bytes] = await Promise.all([call("GET", `${base}/heightfield.json`), call("GET", `${base}/heightfield.bin`, { binary: true })]);
  const g = meta.grid;
  model.field = { nx: g.nx, nz: g.nz, res: g.resolution_ft, xMin: g.x_min_ft, zMin: g.z_min_ft, heights: new Float32Array(bytes) };
  model.flag = { x: tenth(hole.holeXFt ?? 0), z: tenth(hole.holeZFt ?? 0) };
  model.ball = clampToGreen({ x: tenth(model.flag.x - 10), z: tenth(model.flag.z + 5) });
  model.line = null;
  drawGreen();
  if (!performance.getEntriesByName("clubhouse:rendered").length) performance.mark("clubhouse:rendered");
  await settle();
}

async function guarded(work) {
  try { await work(); } catch (error) { showError(errorLine, error); }
}

document.getElementById("course").addEventListener("change", (e) => guarded(async () => { model.course = e.target.value; await loadHoles(0); }));
document.getElementById("hole").addEventListener("change", (e) => guarded(async () => {
  const hole = model.holes.find((h) => h.hole === Number(e.target.value));
  if (hole) await loadHole(hole);
}));
document.getElementById("stimp").addEventListener("change", (e) => {
  const value = Number(e.target.value);
  if (!(value >= 5 && value <= 16)) { showError(errorLine, { message: `stimp ${e.target.value} is outside 5–16 ft` }); return; }
  model.stimp = value;
  settle();
});
document.getElementById("pick").addEventListener("submit", (e) => e.preventDefault());

window.addEventListener("resize", place);
guarded(loadCourses);

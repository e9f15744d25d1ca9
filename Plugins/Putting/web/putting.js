// The putting panel: course → hole → the green drawn from its heightfield (elevation shading, contour
// lines, a 5 ft grid, the cup), a draggable ball and flag (pointer events: one path for touch and
// mouse; arrow keys too), and on release the plugin's best line: aim, speed, make probability, result.
// "What if": a blue aim marker to drag and a pace to set, rolled by the plugin's `roll` (the path, where
// it stops, holed or missed and by how much). A 3D view of the green (view3d.js, WebGL) with the ball
// rolling the best line or the what-if stroke. The green book for the pin (the plugin's `book`, followed
// as a call with its progress and a Cancel) drawn over the green as a heat map with a legend.
// Coordinates are the plugin's: feet from the green's centre, +x east, +z north. In the SVG, y = −z.
import { call, el, followCall, showError } from "/ui/_/clubhouse.js";
import { createView3D, BALL_SCALE } from "./view3d.js";
import { heatMeasure, rampColour } from "./heatmap.js";

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
  whatIf: { on: false, pace: 1.5, roll: null, pending: null },
  target: { x: 0, z: 0 }, // the what-if aim point
  book: null,             // {flag, spacing, entries} of the last green book
  bookShown: true,
  bookRun: null,          // AbortController of the running book
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
    book: svg("g", { class: "book-cells", id: "book-cells" }),
    whatIf: svg("polyline", { class: "whatif-path", id: "whatif-path" }),
    rest: svg("circle", { class: "whatif-rest", id: "whatif-rest", r: 0.5 }),
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
    // The what-if aim point: a blue diamond with a cross hair.
    aimPoint: handle("target", "Aim point", [
      svg("circle", { class: "hit", r: 22, fill: "transparent" }),
      svg("path", { d: "M0 -9 L9 0 L0 9 L-9 0 Z", fill: "#1f5fd6", stroke: "#fff", "stroke-width": 2 }),
      svg("path", { d: "M-3 0 H3 M0 -3 V3", stroke: "#fff", "stroke-width": 1.5 }),
      svg("circle", { class: "ring", r: 13, fill: "none", stroke: "#1f5fd6", "stroke-width": 1.5 })],
      { onMove: () => {}, onRelease: () => rollWhatIf() }),
  };
  green.append(
    svg("image", { href: picture.url, x: left, y: top, width, height, preserveAspectRatio: "none" }),
    svg("path", { class: "contour", d: contours(f, levels) }),
    grid, layers.book, layers.aim, layers.path, layers.whatIf, layers.rest, layers.flag, layers.ball, layers.aimPoint);
  drawBook();
  place();
}

function niceInterval(raw) {
  const power = 10 ** Math.floor(Math.log10(raw || 0.1));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * power) return m * power;
  return 10 * power;
}

// A draggable marker: pointer events (touch, pen and mouse alike) and arrow keys (0.5 ft a press).
function handle(which, label, children, { onMove = () => { model.line = null; }, onRelease = () => settle() } = {}) {
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
    onMove();
    place();
  });
  const release = (event) => {
    if (!dragging) return;
    dragging = false;
    group.classList.remove("dragging");
    if (group.hasPointerCapture(event.pointerId)) group.releasePointerCapture(event.pointerId);
    onRelease();
  };
  group.addEventListener("pointerup", release);
  group.addEventListener("pointercancel", release);
  group.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: [-0.5, 0], ArrowRight: [0.5, 0], ArrowUp: [0, 0.5], ArrowDown: [0, -0.5] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    model[which] = clampToGreen({ x: model[which].x + move[0], z: model[which].z + move[1] });
    onMove();
    place();
    onRelease();
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
  layers.aimPoint.setAttribute("transform", `translate(${model.target.x} ${-model.target.z}) scale(${scale})`);
  layers.aimPoint.setAttribute("aria-valuetext", feet(model.target));
  layers.aimPoint.setAttribute("visibility", model.whatIf.on ? "visible" : "hidden");
  layers.aimPoint.setAttribute("tabindex", model.whatIf.on ? "0" : "-1");
  const roll = model.whatIf.on ? model.whatIf.roll : null;
  layers.whatIf.setAttribute("points", roll ? roll.pathXFt.map((x, i) => `${x.toFixed(2)},${(-roll.pathZFt[i]).toFixed(2)}`).join(" ") : "");
  layers.rest.setAttribute("visibility", roll && !roll.holed ? "visible" : "hidden");
  if (roll) { layers.rest.setAttribute("cx", roll.restXFt); layers.rest.setAttribute("cy", -roll.restZFt); layers.rest.setAttribute("r", 6 * scale); }
  layers.book.setAttribute("visibility", model.bookShown ? "visible" : "hidden");
  if (view3d) view3d.setMarkers(model.ball, model.flag);
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
    path3d();
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
  if (model.whatIf.on) rollWhatIf();
  if (model.book && (model.book.flag.x !== model.flag.x || model.book.flag.z !== model.flag.z)) staleBook();
}

// ---- what if: my own aim and pace -----------------------------------------------------------------

const whatIfError = document.getElementById("whatif-error");
const paceInput = document.getElementById("pace");

function paceText(p) {
  if (Math.abs(p) < 0.05) return "dying at the hole";
  return p > 0 ? `${p.toFixed(1)} ft past the hole` : `${(-p).toFixed(1)} ft short of the hole`;
}

/** Where a stroke finished, in words: holed, or how far it missed and which way. */
function missWords(roll) {
  if (roll.holed) return "holed";
  const dx = model.flag.x - model.ball.x, dz = model.flag.z - model.ball.z, d = Math.hypot(dx, dz) || 1;
  const rx = roll.restXFt - model.flag.x, rz = roll.restZFt - model.flag.z;
  const along = (rx * dx + rz * dz) / d, across = (dx * rz - dz * rx) / d;   // + long, + left
  const parts = [];
  if (Math.abs(along) >= 0.05) parts.push(`${Math.abs(along).toFixed(1)} ft ${along > 0 ? "long" : "short"}`);
  if (Math.abs(across) >= 0.05) parts.push(`${Math.abs(across).toFixed(1)} ft ${across > 0 ? "left" : "right"}`);
  const where = roll.end === "offGreen" ? "leaves the green" : `misses by ${roll.missFt.toFixed(1)} ft`;
  return parts.length ? `${where} (${parts.join(", ")})` : where;
}

function whatIfReadout() {
  const roll = model.whatIf.roll;
  const set = (id, text) => { document.getElementById(id).textContent = text; };
  const summary = document.getElementById("whatif-summary");
  summary.hidden = !model.whatIf.on;
  if (!roll) { for (const id of ["wi-aim", "wi-speed", "wi-outcome", "wi-make"]) set(id, "–"); summary.textContent = "My stroke: –"; return; }
  const deg = roll.aimOffsetDeg;
  set("wi-aim", Math.abs(deg) < 0.05 ? "straight at the hole" : `${Math.abs(deg).toFixed(1)}° ${deg > 0 ? "left" : "right"}`);
  set("wi-speed", `${roll.speedFps.toFixed(2)} ft/s`);
  set("wi-outcome", missWords(roll));
  set("wi-make", `${Math.round(roll.makeProbability * 100)} %`);
  // Under the green too, so a phone need not scroll while dragging the aim.
  summary.textContent = `My stroke: ${document.getElementById("wi-aim").textContent} · ${roll.speedFps.toFixed(1)} ft/s · ${missWords(roll)}`;
}

async function rollWhatIf() {
  if (!model.whatIf.on || !model.course) return;
  model.target = { x: tenth(model.target.x), z: tenth(model.target.z) };
  if (model.whatIf.pending) model.whatIf.pending.abort();
  const controller = new AbortController();
  model.whatIf.pending = controller;
  const panel = document.getElementById("whatif-result");
  panel.setAttribute("aria-busy", "true");
  try {
    const reply = await call("POST", `${api}/courses/${encodeURIComponent(model.course)}/holes/${model.hole}/roll`, {
      body: { ball: [model.ball.x, model.ball.z], flag: [model.flag.x, model.flag.z], stimp: model.stimp,
              "aim-point": [model.target.x, model.target.z], pace: model.whatIf.pace },
      signal: controller.signal });
    if (model.whatIf.pending !== controller) return;
    model.whatIf.roll = reply.roll;
    showError(whatIfError, null);
  } catch (error) {
    if (error.status === "cancelled") return;
    model.whatIf.roll = null;
    showError(whatIfError, error);
  } finally {
    if (model.whatIf.pending === controller) { model.whatIf.pending = null; panel.removeAttribute("aria-busy"); }
  }
  whatIfReadout();
  place();
  path3d();
}

/** The aim point and pace of the best line (its aim point at the hole's distance; 17 in past). */
function whatIfFromBest() {
  const line = model.line;
  const reach = Math.hypot(model.flag.x - model.ball.x, model.flag.z - model.ball.z);
  if (line) {
    const heading = Math.atan2(line.v0ZFps, line.v0XFps);
    model.target = clampToGreen({ x: model.ball.x + reach * Math.cos(heading), z: model.ball.z + reach * Math.sin(heading) });
  } else {
    model.target = { ...model.flag };
  }
  model.whatIf.pace = 1.5;
  paceInput.value = "1.5";
  document.getElementById("pace-out").textContent = paceText(1.5);
}

document.getElementById("whatif-on").addEventListener("click", (e) => {
  model.whatIf.on = !model.whatIf.on;
  e.currentTarget.setAttribute("aria-pressed", String(model.whatIf.on));
  e.currentTarget.textContent = model.whatIf.on ? "Hide my stroke" : "Try my own stroke";
  document.getElementById("whatif-controls").hidden = !model.whatIf.on;
  if (model.whatIf.on) {
    whatIfFromBest();
    document.getElementById("path3d").value = "whatif";
    rollWhatIf();
  } else {
    model.whatIf.roll = null;
    document.getElementById("path3d").value = "best";
    whatIfReadout();
    place();
    path3d();
  }
});
paceInput.addEventListener("input", () => { document.getElementById("pace-out").textContent = paceText(Number(paceInput.value)); });
paceInput.addEventListener("change", () => { model.whatIf.pace = Number(paceInput.value); rollWhatIf(); });
document.getElementById("whatif-best").addEventListener("click", () => { whatIfFromBest(); place(); rollWhatIf(); });

// ---- the 3D view ---------------------------------------------------------------------------------

let view3d = null;
const view3dState = document.getElementById("view3d-state");

function setup3d() {
  const canvas = document.getElementById("view3d");
  if (!view3d && !canvas.hidden) {
    try {
      view3d = createView3D(canvas, {
        onUnavailable: () => {
          canvas.hidden = true;
          document.getElementById("view3d-fallback").hidden = false;
          for (const id of ["roll3d", "reset3d", "path3d"]) document.getElementById(id).disabled = true;
          document.getElementById("view3d-note").hidden = true;
          view3d = null;
        },
        onState: (what) => {
          const words = { ready: "", rolling: "Rolling…", holed: "Holed.", stopped: "Stopped." };
          view3dState.textContent = words[what] ?? "";
        },
      });
    } catch (error) {
      showError(errorLine, error);
      view3d = null;
    }
  }
  if (!view3d || !model.field) return;
  const times = view3d.setGreen(model.field);
  document.getElementById("view3d-note").textContent =
    `Heights ×${times} so the slopes show; ball and cup drawn ${BALL_SCALE}× their size. Grid: 5 ft. Drag to turn, pinch or scroll to zoom.`;
  document.getElementById("view3d").dataset.exaggeration = String(times);
  view3d.setMarkers(model.ball, model.flag);
  path3d();
}

/** The path the 3D view rolls: the best line, or the what-if stroke. */
function path3d() {
  if (!view3d) return;
  const which = document.getElementById("path3d").value;
  const source = which === "whatif" ? model.whatIf.roll : model.line;
  view3d.setPath(source ? { x: source.pathXFt, z: source.pathZFt, seconds: source.tEndS, holed: source.holed,
                            colour: which === "whatif" ? [0.85, 0.38, 0.0] : [0.05, 0.25, 0.75] } : null);
}

document.getElementById("path3d").addEventListener("change", path3d);
document.getElementById("roll3d").addEventListener("click", () => {
  if (!view3d) return;
  path3d();
  if (!view3d.roll()) view3dState.textContent = "Nothing to roll: this path has no line yet (see the message above the green or under What if).";
});
document.getElementById("reset3d").addEventListener("click", () => { if (view3d) { path3d(); view3d.reset(); } });

// ---- the green book for the pin: a heat map -------------------------------------------------------

const bookState = document.getElementById("book-state");
const bookError = document.getElementById("book-error");
const bookProgress = document.getElementById("book-progress");
function drawBook() {
  const legend = document.getElementById("book-legend");
  if (!layers) return;
  layers.book.replaceChildren();
  const book = model.book;
  // The legend's room is kept from the moment a book is asked for: nothing moves when it arrives.
  legend.hidden = !(book ? model.bookShown : model.bookRun || legend.dataset.asked);
  document.getElementById("book-hide").disabled = !book;
  green.dataset.bookCells = book ? String(book.entries.length) : "0";
  if (!book) {
    document.getElementById("book-legend-title").textContent = model.bookRun ? "The heat map appears here when the book is ready." : "No book for this pin yet.";
    document.getElementById("book-legend-bar").replaceChildren();
    document.getElementById("book-legend-ticks").replaceChildren();
    return;
  }
  const m = heatMeasure(book.entries, document.getElementById("book-show").value);
  const size = book.spacing;
  for (const e of book.entries) {
    const cell = svg("rect", { class: "book-cell", x: e.xFt - size / 2, y: -e.zFt - size / 2, width: size, height: size, fill: rampColour(m.stops, m.t(e)) },
      svg("title", {}, document.createTextNode(`${e.xFt.toFixed(1)}, ${e.zFt.toFixed(1)} ft: ${m.words(e)}`)));
    cell.addEventListener("click", () => { model.ball = clampToGreen({ x: e.xFt, z: e.zFt }); settle(); });
    layers.book.append(cell);
  }
  document.getElementById("book-legend-title").textContent = `${m.title} · pin at ${feet(book.flag)} · ${book.entries.length} spots every ${size} ft`;
  const bar = document.getElementById("book-legend-bar");
  bar.replaceChildren(...Array.from({ length: 50 }, (_, i) => svg("rect", { x: i * 2, y: 0, width: 2.05, height: 6, fill: rampColour(m.stops, (i + 0.5) / 50) })));
  document.getElementById("book-legend-ticks").replaceChildren(...m.ticks.map((t) => el("span", {}, t)));
}

function staleBook() {
  model.book = null;
  drawBook();
  bookState.textContent = "The flag moved: make the book again for the new pin.";
}

async function makeBook() {
  if (model.bookRun || !model.course) return;
  const controller = new AbortController();
  model.bookRun = controller;
  const start = document.getElementById("book-start"), cancel = document.getElementById("book-cancel");
  start.disabled = true; cancel.disabled = false;
  bookProgress.value = 0;
  showError(bookError, null);
  const flag = { ...model.flag }, spacing = Number(document.getElementById("book-spacing").value);
  bookState.textContent = "Starting the book…";
  document.getElementById("book-legend").dataset.asked = "1";
  model.book = null;
  drawBook();
  const started = performance.now();
  let stoppedAt = null;   // the host's last word on a cancelled book: how far it got
  try {
    const reply = await followCall("POST", `${api}/courses/${encodeURIComponent(model.course)}/holes/${model.hole}/book`, {
      body: { flag: [flag.x, flag.z], spacing, stimp: model.stimp }, signal: controller.signal,
      onProgress: (p) => {
        if (!p.total) return;
        if (p.cancelled) stoppedAt = Math.round((100 * p.done) / p.total);
        bookProgress.max = p.total;
        bookProgress.value = p.done;
        bookState.textContent = `Solving the positions… ${Math.round((100 * p.done) / p.total)} %`;
      },
    });
    const book = reply.book;
    model.book = { flag, spacing: book.spacingFt || spacing, entries: book.entries || [] };
    model.bookShown = true;
    document.getElementById("book-hide").checked = true;
    bookProgress.value = bookProgress.max;
    drawBook();
    place();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    bookState.textContent = `The book is ready: ${model.book.entries.length} spots (${book.cached || 0} from the cache) in ${seconds} s. Tap a square to put the ball there.`;
  } catch (error) {
    if (error.status === "cancelled") {
      bookState.textContent = `${stoppedAt === null ? "Cancelled." : `Cancelled: the host stopped the book at ${stoppedAt} %.`} `
        + "The positions solved so far are kept: making the book again goes on from there.";
      model.bookRun = null;
      drawBook();
    } else {
      showError(bookError, error);
      bookState.textContent = "";
    }
  } finally {
    model.bookRun = null;
    start.disabled = false; cancel.disabled = true;
  }
}

document.getElementById("book-start").addEventListener("click", makeBook);
document.getElementById("book-cancel").addEventListener("click", () => { if (model.bookRun) model.bookRun.abort(); });
document.getElementById("book-show").addEventListener("change", drawBook);
document.getElementById("book-hide").addEventListener("change", (e) => {
  model.bookShown = e.currentTarget.checked;
  drawBook();
  place();
});

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
  model.whatIf.roll = null;
  if (model.bookRun) model.bookRun.abort();
  model.book = null;
  model.target = { ...model.flag };
  drawGreen();
  if (!performance.getEntriesByName("clubhouse:rendered").length) performance.mark("clubhouse:rendered");
  setup3d();
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

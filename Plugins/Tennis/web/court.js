// The court as the tennis plugin sees it (shared/domain/tennis.md, TennisCore's Court and CourtZones):
// the player's half of a singles court in metres — origin at the net on the player's left, x across
// (8.23 m), y from the net to the baseline (11.885 m), service line at 6.40 m — drawn from above with the
// net at the top (as `tennis … --svg` draws it), and above the net the machine's side, where the ball
// machine stands at the far baseline. 16 zones: 4 equal columns; rows at 20 %, the service line, 70 %.
// One function draws the picture from the panel's model (render from data).

export const court = { width: 8.23, halfLength: 11.885, serviceLine: 6.4 };
export const columns = [0, 2.0575, 4.115, 6.1725, 8.23];
export const rows = [0, 2.377, 6.4, 8.3195, 11.885];
const rowNames = ["at the net", "short", "deep", "at the baseline"];
const columnNames = ["far left", "left of centre", "right of centre", "far right"];

// The picture's frame in metres: the half court with a margin, and 3 m of the machine's side above the net.
const view = { minX: -1.1, maxX: 9.33, minY: -3.4, maxY: 12.9 };
const svgNS = "http://www.w3.org/2000/svg";

/** The zone (0–15) of a court point, or null outside the half court (intervals [lo, hi), as the plugin). */
export function zoneAt(x, y) {
  const find = (v, bounds) => {
    if (!(v >= bounds[0] && v < bounds[bounds.length - 1])) return -1;
    let k = 0;
    while (v >= bounds[k + 1]) k += 1;
    return k;
  };
  const c = find(x, columns), r = find(y, rows);
  return c < 0 || r < 0 ? null : r * 4 + c;
}

export function zoneBounds(zone) {
  const r = Math.floor(zone / 4), c = zone % 4;
  return { minX: columns[c], maxX: columns[c + 1], minY: rows[r], maxY: rows[r + 1] };
}

export function zoneCentre(zone) {
  const b = zoneBounds(zone);
  return [(b.minX + b.maxX) / 2, (b.minY + b.maxY) / 2];
}

/** Words for a zone a screen reader speaks: "zone 5: short, left of centre". */
export function zoneWords(zone) {
  return `zone ${zone}: ${rowNames[Math.floor(zone / 4)]}, ${columnNames[zone % 4]}`;
}

/** Words for a court point: "3.1 m from the left sideline, 4.2 m from the net". */
export function pointWords([x, y]) {
  return `${x.toFixed(1)} m from the left sideline, ${y.toFixed(1)} m from the net`;
}

function node(tag, attributes = {}, ...children) {
  const n = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined && v !== null && v !== false) n.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return n;
}

const f = (v) => Math.round(v * 1000) / 1000;

/** The court point (metres) under a pointer event on the picture. */
export function courtPoint(svg, event) {
  const matrix = svg.getScreenCTM();
  if (!matrix) return null;
  const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
  return [p.x, p.y];
}

/**
 * Draws the court into `svg` (an <svg> element) from `state`:
 *   aim: [x, y] the last spot tapped (or null), busy: whether taps are off (a drill runs),
 *   balls: [{n, at: [x, y], state: "planned" | "launched" | "missed"}] numbered marks (a drill's landing picture),
 *   focusZone: the zone a keyboard user is on (the court's one Tab stop).
 * `onZoneKey(zone)` hears Enter or Space on a zone, `onZoneMove(zone)` an arrow key's move to another.
 */
export function drawCourt(svg, state, { onZoneKey, onZoneMove } = {}) {
  svg.setAttribute("viewBox", `${view.minX} ${view.minY} ${f(view.maxX - view.minX)} ${f(view.maxY - view.minY)}`);
  const parts = [];
  // The machine's side: its sidelines and centre line running on beyond the picture's top.
  parts.push(node("rect", { class: "far-side", x: 0, y: view.minY, width: court.width, height: -view.minY }));
  parts.push(node("g", { class: "lines far" },
    node("line", { x1: 0, y1: view.minY, x2: 0, y2: 0 }), node("line", { x1: court.width, y1: view.minY, x2: court.width, y2: 0 }),
    node("line", { x1: court.width / 2, y1: view.minY, x2: court.width / 2, y2: 0 })));
  // The ball machine at the far baseline (11.9 m beyond the net, off the picture): its box, an arrow
  // towards you and a label.
  parts.push(node("g", { class: "machine", id: "machine" },
    node("rect", { x: court.width / 2 - 0.7, y: view.minY + 0.25, width: 1.4, height: 0.9, rx: 0.15 }),
    node("path", { d: `M ${court.width / 2} ${view.minY + 1.35} l -0.35 0.5 h 0.7 z` }),
    node("text", { x: court.width / 2 + 0.95, y: view.minY + 0.65, class: "machine-label" }, "Ball machine"),
    node("text", { x: court.width / 2 + 0.95, y: view.minY + 1.2, class: "machine-note" }, "at the far baseline")));
  // The zones: buttons for the keyboard, one Tab stop for all (the arrow keys move between them, Enter or
  // Space fires), then the lines over them.
  const zones = node("g", { class: "zones" });
  const current = state.focusZone === null || state.focusZone === undefined ? 0 : state.focusZone;
  const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -4, ArrowDown: 4 };
  for (let zone = 0; zone < 16; zone += 1) {
    const b = zoneBounds(zone);
    const rect = node("rect", { class: "zone", "data-zone": zone, x: b.minX, y: b.minY,
      width: f(b.maxX - b.minX), height: f(b.maxY - b.minY), tabindex: !state.busy && zone === current ? 0 : -1, role: "button",
      "aria-label": `Fire at ${zoneWords(zone)}`, "aria-disabled": state.busy ? "true" : null });
    rect.addEventListener("keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && onZoneKey) { event.preventDefault(); onZoneKey(zone); return; }
      const step = moves[event.key];
      if (step === undefined || !onZoneMove) return;
      const next = zone + step;
      // Left and right stay in the zone's row; up and down stay on the court.
      if (next < 0 || next > 15 || (Math.abs(step) === 1 && Math.floor(next / 4) !== Math.floor(zone / 4))) return;
      event.preventDefault();
      onZoneMove(next);
    });
    zones.append(rect);
  }
  parts.push(zones);
  parts.push(node("g", { class: "lines" },
    node("rect", { x: 0, y: 0, width: court.width, height: court.halfLength }),
    node("line", { x1: 0, y1: court.serviceLine, x2: court.width, y2: court.serviceLine }),
    node("line", { x1: court.width / 2, y1: 0, x2: court.width / 2, y2: court.serviceLine }),
    node("line", { x1: court.width / 2, y1: court.halfLength - 0.1, x2: court.width / 2, y2: court.halfLength })));
  parts.push(node("line", { class: "net", x1: view.minX + 0.2, y1: 0, x2: view.maxX - 0.2, y2: 0 }));
  parts.push(node("text", { class: "net-label", x: view.maxX - 0.25, y: -0.25, "text-anchor": "end" }, "net"));
  parts.push(node("text", { class: "baseline-label", x: court.width / 2, y: court.halfLength + 0.75, "text-anchor": "middle" },
    "your baseline"));
  // A drill's balls: planned hollow and dashed, launched filled, each numbered beside its mark (with a
  // halo). Balls whose marks would overlap (closer than 0.6 m) share one label
  // ("1, 3"), as the plugin's court picture does.
  const groups = [];
  for (const ball of state.balls || []) {
    const [x, y] = ball.at;
    const near = groups.find((g) => g.balls.some((b) => Math.hypot(b.at[0] - x, b.at[1] - y) < 0.6));
    if (near) near.balls.push(ball); else groups.push({ balls: [ball] });
  }
  const balls = node("g", { class: "balls", id: "balls" });
  const labels = [];
  for (const group of groups) {
    for (const ball of group.balls) {
      balls.append(node("circle", { class: `ball ${ball.state}`, "data-ball": ball.n, cx: f(ball.at[0]), cy: f(ball.at[1]), r: 0.3 }));
    }
    const top = group.balls.reduce((a, b) => (b.at[1] < a.at[1] ? b : a));
    // Beside the mark, on the side with more room.
    const right = top.at[0] < court.width - 1.2;
    labels.push(node("text", { class: "ball-number", x: f(top.at[0] + (right ? 0.4 : -0.4)), y: f(top.at[1] + 0.13),
      "text-anchor": right ? "start" : "end" }, group.balls.map((b) => b.n).join(", ")));
  }
  parts.push(balls);
  // Zone numbers in each zone's top-left corner (targets aim at the centres), over
  // the marks and under their numbers, so that neither hides the other.
  parts.push(node("g", { class: "zone-numbers", "aria-hidden": "true" },
    Array.from({ length: 16 }, (_, zone) => {
      const b = zoneBounds(zone);
      return node("text", { x: f(b.minX + 0.15), y: f(b.minY + 0.62) }, String(zone));
    })));
  parts.push(node("g", { class: "ball-numbers" }, labels));
  if (state.aim) {
    const [x, y] = state.aim;
    parts.push(node("g", { class: "aim", id: "aim" },
      node("circle", { cx: f(x), cy: f(y), r: 0.45 }),
      node("path", { d: `M ${f(x - 0.7)} ${f(y)} H ${f(x - 0.2)} M ${f(x + 0.2)} ${f(y)} H ${f(x + 0.7)} M ${f(x)} ${f(y - 0.7)} V ${f(y - 0.2)} M ${f(x)} ${f(y + 0.2)} V ${f(y + 0.7)}` })));
  }
  svg.replaceChildren(node("title", {}, "The court from above: the ball machine's side at the top, the net, your half with its 16 zones"), ...parts);
}

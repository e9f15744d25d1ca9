// charts.js — the trend and dispersion charts, drawn by the page as SVG from the plugin's JSON
// (`trends`, `dispersion`). Shapes carry the meaning, colour only repeats it: a filled dot is a valid
// session, a hollow one a low-sample session; a dot is a kept shot, a cross a mishit.
const ns = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(ns, tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function frame(width, height, label) {
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "plot",
    preserveAspectRatio: "xMidYMid meet" });
}

/** A step of 1, 2 or 5 × 10ⁿ giving about `count` ticks over `span`. */
function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

function empty(root, width, height, text) {
  root.append(svg("text", { x: width / 2, y: height / 2, "text-anchor": "middle", class: "note" }, text));
  return root;
}

/**
 * A club's sessions over time: `trend` is `practice trends --json`'s data. Without `metric`, each
 * session's A % (0–100, weighted by shots); with `metric` (`--a-only`), the mean of that measurement over
 * the session's A shots, on a scale fitted to the values (`digits` after the point in the labels).
 */
export function trendChart(trend, { width = 600, height = 300, metric = "", unit = "", digits = 0 } = {}) {
  const left = 52, right = 26, top = 22, bottom = 30;
  const value = metric
    ? (p) => (p.a_only_averages && p.a_only_averages.means ? p.a_only_averages.means[metric] : null)
    : (p) => p.a_percent;
  const points = (trend && trend.points ? trend.points : []).filter((p) => Number.isFinite(value(p)));
  const what = metric ? `${metric.replace("_", " ")} of the A shots` : "A percent";
  const root = frame(width, height, trend ? `${what} of ${trend.club} over ${points.length} sessions` : `${what} over sessions`);
  const plotW = width - left - right, plotH = height - top - bottom;
  let low = 0, high = 100, step = 25;
  if (metric && points.length) {
    const values = points.map(value);
    step = niceStep(Math.max(...values) - Math.min(...values) || Math.abs(values[0]) / 10 || 1, 4);
    low = Math.floor(Math.min(...values) / step) * step;
    high = Math.ceil(Math.max(...values) / step) * step;
    if (high === low) high = low + step;
  }
  const y = (v) => top + plotH * (1 - (v - low) / (high - low));
  const tickDigits = metric ? Math.max(0, -Math.floor(Math.log10(step))) : 0;
  for (let v = low; v <= high + step / 2; v += step) {
    root.append(svg("line", { x1: left, x2: width - right, y1: y(v), y2: y(v), class: v === low ? "axis" : "grid" }));
    root.append(svg("text", { x: left - 8, y: y(v) + 5, "text-anchor": "end", class: "tick" }, metric ? v.toFixed(tickDigits) : `${v}%`));
  }
  if (!points.length) return empty(root, width, height, metric ? "No A shots of this club yet" : "No graded sessions of this club yet");
  // The first and last points sit inside the frame, clear of the axis labels.
  const inset = 22;
  const x = (i) => left + inset + (points.length === 1 ? (plotW - 2 * inset) / 2 : ((plotW - 2 * inset) * i) / (points.length - 1));
  root.append(svg("polyline", { class: "trend", points: points.map((p, i) => `${x(i).toFixed(1)},${y(value(p)).toFixed(1)}`).join(" ") }));
  const every = Math.ceil(points.length / Math.max(2, Math.floor(plotW / 64)));   // a date label needs about 64 px
  points.forEach((p, i) => {
    const small = p.validity !== "valid";
    const date = String(p.date || "").slice(0, 10);
    const shown = value(p).toFixed(metric ? digits : 0);
    const title = metric
      ? `${date}: ${shown}${unit ? ` ${unit}` : ""} over ${p.a_count} A shots of ${p.shot_count}${small ? " (low sample)" : ""}`
      : `${date}: ${shown} % A of ${p.shot_count} shots${small ? " (low sample)" : ""}`;
    root.append(svg("circle", { cx: x(i).toFixed(1), cy: y(value(p)).toFixed(1), r: 6, class: small ? "point low" : "point",
      "data-session": p.session_id }, svg("title", {}, title)));
    if (points.length <= 12) {
      // Above the point, unless the line leaves it upwards on every side (a valley): then below, clear of
      // the line, where there is room above the axis.
      const near = [points[i - 1], points[i + 1]].filter(Boolean).map(value);
      const valley = near.length > 0 && near.every((v) => v > value(p));
      const below = valley && y(value(p)) + 24 <= top + plotH - 2;
      root.append(svg("text", { x: x(i), y: y(value(p)) + (below ? 22 : -11), "text-anchor": "middle", class: "value" }, shown));
    }
    if ((i % every === 0 && points.length - 1 - i >= every) || i === points.length - 1) {
      root.append(svg("text", { x: x(i), y: height - bottom + 20, "text-anchor": "middle", class: "tick" }, date.slice(5)));
    }
  });
  return root;
}

/** Where the shots of a club landed (side right +, carry up), the 95 % ellipse; `d` is `practice dispersion --json`'s data. */
export function dispersionChart(d, { width = 600, height = 420 } = {}) {
  const left = 50, right = 14, top = 12, bottom = 42;
  const shots = (d && d.shots ? d.shots : []).filter((s) => Number.isFinite(s.carry) && Number.isFinite(s.side));
  const root = frame(width, height, d ? `Dispersion of ${d.club}: ${shots.length} shots` : "Dispersion");
  if (!shots.length) {
    root.append(svg("line", { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: "axis" }));
    return empty(root, width, height, "No measured shots of this club yet");
  }
  const sides = shots.map((s) => s.side), carries = shots.map((s) => s.carry);
  let sMin = Math.min(0, ...sides), sMax = Math.max(0, ...sides);
  let cMin = Math.min(...carries), cMax = Math.max(...carries);
  const plotW = width - left - right, plotH = height - top - bottom;
  // One scale both ways, so the ellipse's shape is true; the shorter range is widened to fit.
  const pad = 5;
  sMin -= pad; sMax += pad; cMin -= pad; cMax += pad;
  const k = Math.min(plotW / (sMax - sMin), plotH / (cMax - cMin));
  const sMid = (sMin + sMax) / 2, cMid = (cMin + cMax) / 2;
  sMin = sMid - plotW / k / 2; sMax = sMid + plotW / k / 2;
  cMin = cMid - plotH / k / 2; cMax = cMid + plotH / k / 2;
  const x = (side) => left + (side - sMin) * k;
  const y = (carry) => top + (cMax - carry) * k;
  const cStep = niceStep(cMax - cMin, 6), sStep = niceStep(sMax - sMin, 6);
  for (let v = Math.ceil(cMin / cStep) * cStep; v <= cMax; v += cStep) {
    root.append(svg("line", { x1: left, x2: width - right, y1: y(v), y2: y(v), class: "grid" }));
    root.append(svg("text", { x: left - 8, y: y(v) + 5, "text-anchor": "end", class: "tick" }, `${Math.round(v)}`));
  }
  for (let v = Math.ceil(sMin / sStep) * sStep; v <= sMax; v += sStep) {
    root.append(svg("line", { x1: x(v), x2: x(v), y1: top, y2: height - bottom, class: v === 0 ? "target" : "grid" }));
    const label = v === 0 ? "0" : v < 0 ? `${Math.round(-v)} L` : `${Math.round(v)} R`;
    root.append(svg("text", { x: x(v), y: height - bottom + 20, "text-anchor": "middle", class: "tick" }, label));
  }
  root.append(svg("text", { x: left + plotW / 2, y: height - 6, "text-anchor": "middle", class: "tick" }, "side (yd)"));
  root.append(svg("text", { x: 14, y: top + plotH / 2, "text-anchor": "middle", class: "tick",
    transform: `rotate(-90 14 ${top + plotH / 2})` }, "carry (yd)"));
  const e = d.ellipse;
  if (e && Number.isFinite(e.semi_major) && Number.isFinite(e.semi_minor)) {
    const t = (e.angle_degrees * Math.PI) / 180;
    const outline = [];
    for (let i = 0; i < 64; i++) {
      const a = (2 * Math.PI * i) / 64;
      const u = e.semi_major * Math.cos(a), v = e.semi_minor * Math.sin(a);
      const side = e.center_side + u * Math.cos(t) - v * Math.sin(t);
      const carry = e.center_carry + u * Math.sin(t) + v * Math.cos(t);
      outline.push(`${x(side).toFixed(1)},${y(carry).toFixed(1)}`);
    }
    root.append(svg("polygon", { class: "ellipse", points: outline.join(" ") }, svg("title", {}, "95 % ellipse")));
  }
  for (const s of shots) {
    const title = `${s.carry.toFixed(1)} yd carry, ${Math.abs(s.side).toFixed(1)} yd ${s.side < 0 ? "left" : "right"}${s.mishit ? " (mishit)" : ""}`;
    if (s.mishit) {
      const cx = x(s.side), cy = y(s.carry), r = 6;
      root.append(svg("path", { class: "mishit", d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}` },
        svg("title", {}, title)));
    } else {
      root.append(svg("circle", { class: "shot", cx: x(s.side).toFixed(1), cy: y(s.carry).toFixed(1), r: 5 }, svg("title", {}, title)));
    }
  }
  return root;
}

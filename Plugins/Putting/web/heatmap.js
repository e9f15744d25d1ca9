// The green book's heat map: what a square's colour says (make probability, or the aim offset at the
// hole) on colour-blind-safe ramps, the words of its tooltip and the legend's title and ticks. Pure
// functions of the book's entries; putting.js draws the squares over the green.

// Colour-blind-safe ramps: make probability 0 → 100 % (dark purple to yellow); aim right ← 0 → left.
const MAKE_RAMP = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
const AIM_RAMP = [[179, 88, 6], [241, 163, 64], [247, 247, 247], [153, 142, 195], [84, 39, 136]];

/** The colour at `t` (0…1) along the ramp `stops` ([r, g, b] each), as CSS `rgb(…)`. */
export function rampColour(stops, t) {
  const s = Math.max(0, Math.min(1, t)) * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(s)), f = s - i;
  const c = stops[i].map((v, k) => Math.round(v + (stops[i + 1][k] - v) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/**
 * What the heat map of a green book's `entries` shows (`show`: "make" or "aim"): `t(entry)` in 0…1 for
 * its colour on the ramp `stops`, `words(entry)` for its tooltip, and the legend's `title` and `ticks`.
 */
export function heatMeasure(entries, show) {
  const pct = (e) => `${Math.round((e.makeProbability || 0) * 100)} %`;
  const aim = (e) => `${Math.abs(e.aimOffsetIn || 0).toFixed(1)} in ${(e.aimOffsetIn || 0) >= 0 ? "left" : "right"}`;
  if (show === "aim") {
    const most = entries.reduce((m, e) => Math.max(m, Math.abs(e.aimOffsetIn || 0)), 1);
    const span = Math.ceil(most / 2) * 2;
    return {
      stops: AIM_RAMP, t: (e) => 0.5 + (e.aimOffsetIn || 0) / (2 * span),
      words: (e) => `aim ${aim(e)}, ${(e.speedFps || 0).toFixed(1)} ft/s, make ${pct(e)}`,
      title: "Aim offset at the hole (inches)", ticks: [`${span} in right`, "straight", `${span} in left`],
    };
  }
  return {
    stops: MAKE_RAMP, t: (e) => e.makeProbability || 0,
    words: (e) => `make ${pct(e)}, aim ${aim(e)}`,
    title: "Make probability from each spot", ticks: ["0 %", "50 %", "100 %"],
  };
}

// The putting panel's 3D view: WebGL 1 written by hand (no library). The green's heightfield as a lit
// triangle mesh (heights exaggerated so a 2 % slope shows; the page says by how much), coloured by
// height and darkened by slope, a 5 ft grid, the cup and flagstick, the line as a ribbon on the surface
// and the ball rolling along it. Orbit by dragging (mouse, touch, pen), zoom by pinch or wheel, arrow
// keys and + / − when the canvas has focus. Green frame (feet): +x east, +z north, y up; in GL the
// north is −Z so that, seen from the south, east is on the right (as on the 2D green: nothing mirrored).

const VERTEX = `
attribute vec3 position;
attribute vec3 normal;
attribute vec3 color;
uniform mat4 viewProjection;
uniform vec3 offset;
uniform float scale;
varying vec3 vNormal;
varying vec3 vColor;
varying vec3 vWorld;
void main() {
  vec3 p = position * scale + offset;
  vNormal = normal;
  vColor = color;
  vWorld = p;
  gl_Position = viewProjection * vec4(p, 1.0);
}`;

const FRAGMENT = `
precision mediump float;
uniform vec3 light;
uniform float lit;
uniform float grid;
varying vec3 vNormal;
varying vec3 vColor;
varying vec3 vWorld;
void main() {
  float diffuse = max(dot(normalize(vNormal), light), 0.0);
  vec3 c = mix(vColor, vColor * (0.38 + 0.72 * diffuse), lit);
  if (grid > 0.5) {
    vec2 g = abs(fract(vWorld.xz / 5.0 + 0.5) - 0.5) * 5.0;   // feet to the nearest 5 ft line
    float line = 1.0 - smoothstep(0.03, 0.09, min(g.x, g.y));
    c *= 1.0 - 0.22 * line;
  }
  gl_FragColor = vec4(c, 1.0);
}`;

// ---- 4×4 matrices, column-major as WebGL wants them ----------------------------------------------

function perspective(fovY, aspect, near, far) {
  const f = 1 / Math.tan(fovY / 2), d = 1 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * d, -1, 0, 0, 2 * far * near * d, 0];
}

function lookAt(eye, target, up) {
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const norm = (a) => { const l = Math.hypot(...a) || 1; return a.map((v) => v / l); };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const z = norm(sub(eye, target)), x = norm(cross(up, z)), y = cross(z, x);
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
}

function multiply(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}

// ---- the view ------------------------------------------------------------------------------------

/** Height colour ramp (low → high), as RGB in 0…1. */
const RAMP = [[0.16, 0.42, 0.20], [0.33, 0.60, 0.25], [0.60, 0.76, 0.33], [0.86, 0.86, 0.50]];
function ramp(t) {
  const s = Math.max(0, Math.min(1, t)) * (RAMP.length - 1), i = Math.min(RAMP.length - 2, Math.floor(s)), f = s - i;
  return RAMP[i].map((v, k) => v + (RAMP[i + 1][k] - v) * f);
}

export const BALL_SCALE = 6;   // ball and cup are drawn this many times their size, so a phone shows them

/**
 * Makes the 3D view on `canvas`; answers null (and says why through `onUnavailable`) when the browser
 * gives no WebGL. `onState(text)` hears what the ball is doing (for the page's status line).
 */
export function createView3D(canvas, { onUnavailable, onState } = {}) {
  let gl = null;
  try {
    gl = canvas.getContext("webgl", { antialias: true, preserveDrawingBuffer: true }) || canvas.getContext("experimental-webgl", { preserveDrawingBuffer: true });
  } catch (_) { gl = null; }
  if (!gl) { if (onUnavailable) onUnavailable("no-webgl"); return null; }

  const program = link(gl, VERTEX, FRAGMENT);
  const where = {};
  for (const name of ["position", "normal", "color"]) where[name] = gl.getAttribLocation(program, name);
  for (const name of ["viewProjection", "offset", "scale", "light", "lit", "grid"]) where[name] = gl.getUniformLocation(program, name);

  const view = {
    field: null, exaggeration: 1, centre: [0, 0, 0], radius: 50,
    yaw: 0, pitch: 0.72, distance: 1,
    terrain: null, cup: null, stick: null, flag: null, ball: null, ribbon: null,
    flagAt: { x: 0, z: 0 }, ballAt: { x: 0, z: 0 },
    path: null, rolling: null, ballPos: null, frame: 0, dirty: true, lost: false,
  };

  // A mesh: interleaved position, normal, colour (9 floats a vertex) and 16-bit indices (or none).
  function mesh(vertices, indices, mode = gl.TRIANGLES) {
    const buffer = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(vertices), gl.STATIC_DRAW);
    let index = null;
    if (indices) {
      index = gl.createBuffer();
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, index);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, new Uint16Array(indices), gl.STATIC_DRAW);
    }
    return { buffer, index, count: indices ? indices.length : vertices.length / 9, mode };
  }
  function free(m) { if (m) { gl.deleteBuffer(m.buffer); if (m.index) gl.deleteBuffer(m.index); } }

  function draw(m, { offset = [0, 0, 0], scale = 1, lit = 1, grid = 0 } = {}) {
    if (!m) return;
    gl.bindBuffer(gl.ARRAY_BUFFER, m.buffer);
    const stride = 36;
    gl.vertexAttribPointer(where.position, 3, gl.FLOAT, false, stride, 0);
    gl.vertexAttribPointer(where.normal, 3, gl.FLOAT, false, stride, 12);
    gl.vertexAttribPointer(where.color, 3, gl.FLOAT, false, stride, 24);
    gl.uniform3fv(where.offset, offset);
    gl.uniform1f(where.scale, scale);
    gl.uniform1f(where.lit, lit);
    gl.uniform1f(where.grid, grid);
    if (m.index) {
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.index);
      gl.drawElements(m.mode, m.count, gl.UNSIGNED_SHORT, 0);
    } else {
      gl.drawArrays(m.mode, 0, m.count);
    }
  }

  // Height of the green (feet, not exaggerated) at (x, z), bilinear; 0 outside the grid.
  function heightAt(x, z) {
    const f = view.field;
    if (!f) return 0;
    const u = (x - f.xMin) / f.res, v = (z - f.zMin) / f.res;
    const i = Math.max(0, Math.min(f.nx - 2, Math.floor(u))), j = Math.max(0, Math.min(f.nz - 2, Math.floor(v)));
    const a = Math.max(0, Math.min(1, u - i)), b = Math.max(0, Math.min(1, v - j));
    const h = (ii, jj) => { const value = f.heights[jj * f.nx + ii]; return Number.isFinite(value) ? value : 0; };
    return (1 - b) * ((1 - a) * h(i, j) + a * h(i + 1, j)) + b * ((1 - a) * h(i, j + 1) + a * h(i + 1, j + 1));
  }
  const gx = (x) => x, gz = (z) => -z, gy = (h) => h * view.exaggeration;

  function buildTerrain() {
    const f = view.field;
    free(view.terrain);
    // At most 250 vertices a side (16-bit indices, and plenty for a green).
    const step = Math.max(1, Math.ceil(Math.max(f.nx, f.nz) / 250));
    const cols = Math.floor((f.nx - 1) / step) + 1, rows = Math.floor((f.nz - 1) / step) + 1;
    let lo = Infinity, hi = -Infinity;
    for (const h of f.heights) if (h > 0) { lo = Math.min(lo, h); hi = Math.max(hi, h); }
    if (!(hi > lo)) { lo = 0; hi = 1; }
    const inside = (i, j) => f.heights[j * f.nx + i] > 0;
    // A neighbour's height for the slope: off the grid or off the green, the vertex's own (one-sided).
    const H = (i, j, own) => { const v = f.heights[Math.min(f.nz - 1, Math.max(0, j)) * f.nx + Math.min(f.nx - 1, Math.max(0, i))]; return v > 0 ? v : own; };
    const vertices = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const i = c * step, j = r * step;
        const h = H(i, j, lo);
        const d = step * f.res;
        const dx = (H(i + step, j, h) - H(i - step, j, h)) / (2 * d) * view.exaggeration;
        const dz = (H(i, j + step, h) - H(i, j - step, h)) / (2 * d) * view.exaggeration;
        // Normal of y = h(x, z) in GL axes (Z = −z): (−∂h/∂x, 1, +∂h/∂z), normalised.
        const n = [-dx, 1, dz], l = Math.hypot(...n);
        const slope = Math.hypot(dx, dz) / view.exaggeration;           // the true slope, rise over run
        const colour = ramp((h - lo) / (hi - lo)).map((v) => v * (1 - Math.min(0.35, slope * 6)));
        vertices.push(gx(f.xMin + i * f.res), gy(h), gz(f.zMin + j * f.res), n[0] / l, n[1] / l, n[2] / l, ...colour);
      }
    }
    const indices = [];
    for (let r = 0; r + 1 < rows; r++) {
      for (let c = 0; c + 1 < cols; c++) {
        const i = c * step, j = r * step, i2 = Math.min(f.nx - 1, i + step), j2 = Math.min(f.nz - 1, j + step);
        const a = r * cols + c, b = a + 1, d = a + cols, e = d + 1;
        const ia = inside(i, j), ib = inside(i2, j), id = inside(i, j2), ie = inside(i2, j2);
        // Each triangle whose three corners are on the green (its edge then follows the diagonals).
        if (ia && ib && id && ie) { indices.push(a, d, b, b, d, e); continue; }
        if (ia && ib && id) indices.push(a, d, b);
        else if (ib && id && ie) indices.push(b, d, e);
        else if (ia && ib && ie) indices.push(a, e, b);
        else if (ia && id && ie) indices.push(a, d, e);
      }
    }
    view.terrain = mesh(vertices, indices);
    view.heightSpan = [lo, hi];
  }

  // A unit sphere (for the ball), a disc (the cup), the stick and its flag.
  function sphere(colour, rings = 8, segments = 12) {
    const v = [], idx = [];
    for (let r = 0; r <= rings; r++) {
      const phi = (r / rings) * Math.PI;
      for (let s = 0; s <= segments; s++) {
        const th = (s / segments) * 2 * Math.PI;
        const n = [Math.sin(phi) * Math.cos(th), Math.cos(phi), Math.sin(phi) * Math.sin(th)];
        v.push(...n, ...n, ...colour);
      }
    }
    for (let r = 0; r < rings; r++) for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s, b = a + segments + 1;
      idx.push(a, b, a + 1, a + 1, b, b + 1);
    }
    return mesh(v, idx);
  }
  function disc(colour, segments = 20) {
    const v = [0, 0, 0, 0, 1, 0, ...colour];
    for (let s = 0; s <= segments; s++) {
      const th = (s / segments) * 2 * Math.PI;
      v.push(Math.cos(th), 0, -Math.sin(th), 0, 1, 0, ...colour);
    }
    const m = mesh(v, null, gl.TRIANGLE_FAN);
    return m;
  }
  function box(w, h, colour) {
    // A thin vertical post from y = 0 to h: four faces.
    const v = [], idx = [];
    const faces = [[[-w, 0, w], [w, 0, w], [0, 0, 1]], [[w, 0, w], [w, 0, -w], [1, 0, 0]], [[w, 0, -w], [-w, 0, -w], [0, 0, -1]], [[-w, 0, -w], [-w, 0, w], [-1, 0, 0]]];
    for (const [p, q, n] of faces) {
      const base = v.length / 9;
      v.push(p[0], 0, p[2], ...n, ...colour, q[0], 0, q[2], ...n, ...colour, q[0], h, q[2], ...n, ...colour, p[0], h, p[2], ...n, ...colour);
      idx.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
    return mesh(v, idx);
  }

  function buildMarkers() {
    free(view.cup); free(view.stick); free(view.flag); free(view.ball);
    const scale = view.radius / 40;   // the flagstick's height follows the green's size
    view.cup = disc([0.05, 0.05, 0.05]);
    view.stick = box(0.1 * scale, 7 * scale, [0.95, 0.95, 0.9]);
    const top = 7 * scale, red = [0.82, 0.07, 0.07];
    view.flag = mesh([0, top, 0, 0, 0, 1, ...red, 2.4 * scale, top - 0.7 * scale, 0, 0, 0, 1, ...red, 0, top - 1.4 * scale, 0, 0, 0, 1, ...red,
                      0, top, 0, 0, 0, -1, ...red, 0, top - 1.4 * scale, 0, 0, 0, -1, ...red, 2.4 * scale, top - 0.7 * scale, 0, 0, 0, -1, ...red], null);
    view.ball = sphere([1, 1, 1]);
  }

  // The line as a flat ribbon lying on the surface (lifted a little; the terrain is pushed back).
  function buildRibbon() {
    free(view.ribbon);
    view.ribbon = null;
    const p = view.path;
    if (!p || p.x.length < 2) return;
    const w = Math.max(0.15, view.radius / 110), lift = 0.03;
    const colour = p.colour || [0.05, 0.25, 0.75];
    const v = [], idx = [];
    for (let k = 0; k < p.x.length; k++) {
      const a = Math.max(0, k - 1), b = Math.min(p.x.length - 1, k + 1);
      let tx = p.x[b] - p.x[a], tz = p.z[b] - p.z[a];
      const l = Math.hypot(tx, tz) || 1; tx /= l; tz /= l;
      for (const side of [-1, 1]) {
        const x = p.x[k] - tz * w * side, z = p.z[k] + tx * w * side;
        v.push(gx(x), gy(heightAt(x, z)) + lift, gz(z), 0, 1, 0, ...colour);
      }
      if (k > 0 && idx.length / 6 < 10000) { const o = (k - 1) * 2; idx.push(o, o + 1, o + 2, o + 1, o + 3, o + 2); }
    }
    if (v.length / 9 > 65000) return;
    view.ribbon = mesh(v, idx);
  }

  function frameGreen() {
    const f = view.field;
    let x0 = Infinity, x1 = -Infinity, z0 = Infinity, z1 = -Infinity;
    for (let j = 0; j < f.nz; j++) for (let i = 0; i < f.nx; i++) {
      if (!(f.heights[j * f.nx + i] > 0)) continue;
      const x = f.xMin + i * f.res, z = f.zMin + j * f.res;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); z0 = Math.min(z0, z); z1 = Math.max(z1, z);
    }
    if (!(x1 > x0)) { x0 = f.xMin; x1 = f.xMin + (f.nx - 1) * f.res; z0 = f.zMin; z1 = f.zMin + (f.nz - 1) * f.res; }
    view.centre = [(x0 + x1) / 2, 0, (z0 + z1) / 2];
    view.radius = Math.max(10, Math.hypot(x1 - x0, z1 - z0) / 2);
  }

  function reset() {
    view.yaw = 0; view.pitch = 0.72; view.distance = view.radius * 1.55;
    view.rolling = null; view.ballPos = null;
    if (onState) onState("ready");
    request();
  }

  function render() {
    view.frame = 0;
    if (view.lost) return;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    gl.viewport(0, 0, w, h);
    gl.clearColor(0.87, 0.92, 0.95, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    if (!view.terrain) return;
    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(program);
    for (const name of ["position", "normal", "color"]) gl.enableVertexAttribArray(where[name]);
    const [cx, , cz] = view.centre;
    const mid = gy((view.heightSpan[0] + view.heightSpan[1]) / 2);
    const target = [gx(cx), mid, gz(cz)];
    const eye = [target[0] + view.distance * Math.sin(view.yaw) * Math.cos(view.pitch),
                 target[1] + view.distance * Math.sin(view.pitch),
                 target[2] + view.distance * Math.cos(view.yaw) * Math.cos(view.pitch)];
    const projection = perspective(0.75, w / h, view.distance / 50, view.distance * 4 + view.radius * 4);
    gl.uniformMatrix4fv(where.viewProjection, false, new Float32Array(multiply(projection, lookAt(eye, target, [0, 1, 0]))));
    const light = [-0.45, 0.8, -0.4], l = Math.hypot(...light);   // from the north-west, high
    gl.uniform3fv(where.light, light.map((v) => v / l));
    gl.enable(gl.POLYGON_OFFSET_FILL);
    gl.polygonOffset(1, 2);
    draw(view.terrain, { grid: 1 });
    gl.disable(gl.POLYGON_OFFSET_FILL);
    draw(view.ribbon, { lit: 0 });
    const f = view.flagAt, cupY = gy(heightAt(f.x, f.z)) + 0.02;
    draw(view.cup, { offset: [gx(f.x), cupY, gz(f.z)], scale: (2.125 / 12) * BALL_SCALE, lit: 0 });
    draw(view.stick, { offset: [gx(f.x), cupY, gz(f.z)] });
    draw(view.flag, { offset: [gx(f.x), cupY, gz(f.z)], lit: 0.5 });
    const b = view.ballPos || view.ballAt, r = (1.68 / 24) * BALL_SCALE;
    if (!(view.rolling && view.rolling.holed && view.rolling.done)) {
      draw(view.ball, { offset: [gx(b.x), gy(heightAt(b.x, b.z)) + r, gz(b.z)], scale: r });
    }
  }

  function request() {
    view.dirty = true;
    if (!view.frame) view.frame = requestAnimationFrame(tick);
  }

  // The ball along the path: arc length s(t) = L·(1 − (1 − t/T)²), a ball slowing at a steady rate.
  function tick(now) {
    view.frame = 0;
    const roll = view.rolling;
    if (roll && !roll.done) {
      if (roll.start === null) roll.start = now;
      const T = Math.max(0.3, roll.seconds);
      const t = Math.min(1, (now - roll.start) / 1000 / T);
      const s = roll.length * (1 - (1 - t) * (1 - t));
      let k = 1;
      while (k < roll.arc.length - 1 && roll.arc[k] < s) k++;
      const seg = roll.arc[k] - roll.arc[k - 1] || 1, u = Math.max(0, Math.min(1, (s - roll.arc[k - 1]) / seg));
      const p = view.path;
      view.ballPos = { x: p.x[k - 1] + (p.x[k] - p.x[k - 1]) * u, z: p.z[k - 1] + (p.z[k] - p.z[k - 1]) * u };
      if (t >= 1) {
        roll.done = true;
        if (onState) onState(roll.holed ? "holed" : "stopped");
      }
      render();
      if (!roll.done) view.frame = requestAnimationFrame(tick);
      return;
    }
    render();
  }

  function roll() {
    const p = view.path;
    if (!p || p.x.length < 2) return false;
    const arc = [0];
    for (let k = 1; k < p.x.length; k++) arc.push(arc[k - 1] + Math.hypot(p.x[k] - p.x[k - 1], p.z[k] - p.z[k - 1]));
    view.rolling = { arc, length: arc[arc.length - 1], seconds: p.seconds || 3, holed: !!p.holed, start: null, done: false };
    view.ballPos = { x: p.x[0], z: p.z[0] };
    if (onState) onState("rolling");
    request();
    return true;
  }

  // ---- orbit and zoom ----------------------------------------------------------------------------
  const pointers = new Map();
  let pinch = null;
  const clampPitch = (v) => Math.max(0.12, Math.min(1.45, v));
  const zoom = (factor) => { view.distance = Math.max(view.radius * 0.35, Math.min(view.radius * 8, view.distance * factor)); request(); };
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 2) { const [a, b] = [...pointers.values()]; pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) || 1 }; }
    e.preventDefault();
  });
  canvas.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    const now = { x: e.clientX, y: e.clientY };
    pointers.set(e.pointerId, now);
    if (pointers.size >= 2 && pinch) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      zoom(pinch.d / d);
      pinch.d = d;
      return;
    }
    view.yaw -= (now.x - last.x) * 0.008;
    view.pitch = clampPitch(view.pitch + (now.y - last.y) * 0.006);
    request();
  });
  const up = (e) => { pointers.delete(e.pointerId); if (pointers.size < 2) pinch = null; };
  canvas.addEventListener("pointerup", up);
  canvas.addEventListener("pointercancel", up);
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); zoom(Math.exp(Math.max(-100, Math.min(100, e.deltaY)) * 0.002)); }, { passive: false });
  canvas.addEventListener("keydown", (e) => {
    const actions = { ArrowLeft: () => { view.yaw += 0.1; }, ArrowRight: () => { view.yaw -= 0.1; },
      ArrowUp: () => { view.pitch = clampPitch(view.pitch + 0.08); }, ArrowDown: () => { view.pitch = clampPitch(view.pitch - 0.08); },
      "+": () => zoom(0.85), "=": () => zoom(0.85), "-": () => zoom(1 / 0.85) };
    const act = actions[e.key];
    if (!act) return;
    e.preventDefault();
    act();
    request();
  });
  canvas.addEventListener("webglcontextlost", (e) => { e.preventDefault(); view.lost = true; if (onUnavailable) onUnavailable("lost"); });
  window.addEventListener("resize", request);

  return {
    /** A new green: `field` {nx, nz, res, xMin, zMin, heights}. Answers the height exaggeration used. */
    setGreen(field) {
      view.field = field;
      frameGreen();
      let lo = Infinity, hi = -Infinity;
      for (const h of field.heights) if (h > 0) { lo = Math.min(lo, h); hi = Math.max(hi, h); }
      const relief = hi > lo ? hi - lo : 1;
      // Relief shown as about a sixteenth of the green's width: whole numbers from 1 to 10.
      view.exaggeration = Math.max(1, Math.min(10, Math.round((view.radius * 0.125) / relief)));
      buildTerrain();
      buildMarkers();
      buildRibbon();
      reset();
      return view.exaggeration;
    },
    setMarkers(ball, flag) { view.ballAt = { ...ball }; view.flagAt = { ...flag }; if (!view.rolling) view.ballPos = null; request(); },
    /** The path to roll: {x: [], z: [], seconds, holed, colour}; null clears it. */
    setPath(path) { view.path = path; view.rolling = null; view.ballPos = null; buildRibbon(); request(); },
    roll,
    reset,
    get exaggeration() { return view.exaggeration; },
  };
}

function link(gl, vertexSource, fragmentSource) {
  const shader = (type, source) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, source);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(`3D view: shader: ${gl.getShaderInfoLog(s)}`);
    return s;
  };
  const p = gl.createProgram();
  gl.attachShader(p, shader(gl.VERTEX_SHADER, vertexSource));
  gl.attachShader(p, shader(gl.FRAGMENT_SHADER, fragmentSource));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(`3D view: program: ${gl.getProgramInfoLog(p)}`);
  return p;
}

// The practice panel (RAID's tabs): import a launch monitor's CSV with its upload progress in bytes and
// a Cancel; the sessions with A/B/C per club; a club's A % trend and its dispersion, drawn as SVG here;
// the KPI templates (activate, hide, rename, duplicate). Render from data: `model` holds everything,
// actions change it and call the view's render function; each error shows where its action was.
import { call, el, showError } from "/ui/_/clubhouse.js";
import { dispersionChart, trendChart } from "./charts.js";
import { bytes, upload } from "./upload.js";

const api = "/api/practice";
// What the trend can show besides the A share: the mean over the A shots of (label, unit, decimals).
const metrics = { carry: ["Carry", "yd", 1], ball_speed: ["Ball speed", "mph", 1], smash_factor: ["Smash factor", "", 2],
  spin_rate: ["Spin", "rpm", 0], descent_angle: ["Descent angle", "°", 1] };
// The upload route's limit (its `max_body` in the plugin's catalogue): a bigger file is not sent at all.
const maxUpload = 64 * 1024 * 1024;
const $ = (id) => document.getElementById(id);

const model = {
  tab: "sessions",
  sessions: null,          // [{session, clubs}] newest first
  selected: null,          // a session id
  detail: null,            // `practice session`'s data
  club: "",
  metric: "",              // "" (the A share) or a measurement whose A-shot mean the trend shows
  trend: null, dispersion: null, trendsAsked: 0,
  templates: null, showHidden: false, templateClub: "",
  editing: null,           // {hash, kind: "rename" | "duplicate"}
  templateErrors: new Map(), // hash → the error of the last action on that template
  sending: null,           // {cancel, file} while an upload is under way
  refocus: null,
  reveal: false,           // bring the session's grades into view once drawn (after an upload)           // the focus key of the button to focus after the templates are drawn again
};

// ---- navigation: #sessions, #session=3, #trends, #trends&club=7i, #templates ----------------------

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.has("session")) {
    model.tab = "sessions";
    model.selected = Number(params.get("session")) || null;
  } else if (params.has("trends")) {
    model.tab = "trends";
    if (params.get("club")) model.club = params.get("club");
    model.metric = metrics[params.get("show")] ? params.get("show") : "";
  } else if (params.has("templates")) {
    model.tab = "templates";
  } else {
    model.tab = "sessions";
  }
}

function renderTabs() {
  for (const name of ["sessions", "trends", "templates"]) {
    const tab = $(`tab-${name}`);
    if (model.tab === name) tab.setAttribute("aria-current", "page"); else tab.removeAttribute("aria-current");
    $(`view-${name}`).hidden = model.tab !== name;
  }
  // A session about to load gets its room now, before its data (nothing moves when it arrives).
  $("detail").classList.toggle("reserved", Boolean(model.selected));
}

async function show() {
  readHash();
  renderTabs();
  if (model.tab === "sessions") {
    await guarded($("sessions-error"), loadSessions);
    renderSessions();
    await openSession(model.selected);
    if (model.reveal) { model.reveal = false; $("detail").scrollIntoView({ block: "start" }); }
  } else if (model.tab === "trends") {
    if (!model.sessions) await guarded($("trends-error"), loadSessions);
    await loadTrends();
  } else {
    await loadTemplates();
  }
}

async function guarded(line, work) {
  try {
    await work();
    showError(line, null);
    return true;
  } catch (error) {
    showError(line, error);
    return false;
  }
}

// ---- sessions --------------------------------------------------------------------------------------

async function loadSessions() {
  const data = await call("GET", `${api}/sessions`);
  model.sessions = [...(data.sessions || [])].sort((a, b) => b.session.id - a.session.id);
}

function sessionDate(s) {
  return s.session_date ? s.session_date.replace("T", " ") : `imported ${String(s.imported_at).slice(0, 10)}`;
}

function renderSessions() {
  const list = $("sessions");
  if (!model.sessions) return;
  if (!model.sessions.length) {
    list.replaceChildren(el("li", { class: "muted" }, "No sessions yet: upload a launch-monitor export above."));
    return;
  }
  list.replaceChildren(...model.sessions.map(({ session: s, clubs }) => el("li", {},
    el("a", { href: `#session=${s.id}`, "aria-current": s.id === model.selected ? "true" : null, "data-session": s.id },
      el("strong", {}, `Session ${s.id}`), ` · ${sessionDate(s)}`,
      el("span", { class: "sub" }, `${s.shot_count} shots · ${clubs.join(", ")}${s.location ? ` · ${s.location}` : ""}`)))));
}

async function openSession(id) {
  if (!id) { renderDetail(); return; }
  await guarded($("detail-error"), async () => {
    const detail = await call("GET", `${api}/sessions/${id}`);
    if (id === model.selected) model.detail = detail;   // another session may have been picked meanwhile
  });
  renderDetail();
}

function percent(value) {
  return value === null || value === undefined ? "–" : `${Math.round(value)} %`;
}

const validityWords = { invalid: "too few shots to grade (under 5)", valid_low_sample: "low sample (5–14 shots)", valid: "valid" };

function gradeBar(a, b, c) {
  const total = a + b + c;
  return el("div", { class: "gradebar", "aria-hidden": "true" },
    ...[["A", a], ["B", b], ["C", c]].filter(([, n]) => n > 0 && total > 0).map(([letter, n]) =>
      el("span", { class: `g${letter}`, "data-share": n / total }, letter)));
}

function renderDetail() {
  const body = $("detail-body");
  const d = model.detail;
  if (!d || !model.selected || d.session.id !== model.selected) {
    $("detail-title").textContent = "Session";
    $("detail-facts").textContent = model.sessions && !model.sessions.length ? "" : "Pick a session in the list to see its grades.";
    body.replaceChildren();
    return;
  }
  const s = d.session;
  $("detail-title").textContent = `Session ${s.id}${s.title ? `: ${s.title}` : ""}`;
  $("detail-facts").textContent = `${sessionDate(s)} · ${s.shot_count} shots${s.location ? ` · ${s.location}` : ""} · ${s.source_name.split("/").pop()}`;
  body.replaceChildren(el("ul", { class: "clubs" }, ...d.clubs.map(({ analysis: a, template_name: template }) => {
    const graded = a.a_count !== null && a.a_count !== undefined;
    return el("li", { class: "club", "data-club": a.club },
      el("h3", {}, a.club, el("span", { class: "sub" }, ` ${a.shot_count} shots · ${validityWords[a.validity] || a.validity}`)),
      graded ? gradeBar(a.a_count, a.b_count, a.c_count) : null,
      el("p", { class: "counts" },
        graded ? `A ${a.a_count} · B ${a.b_count} · C ${a.c_count} · A share ${percent(a.a_percent)}` : "not graded"),
      el("p", { class: "sub" }, template ? `graded by ${template}` : "no template for this club"));
  })));
  // The bar's parts take their share of the width (set here: the CSP refuses inline style attributes).
  for (const part of body.querySelectorAll(".gradebar span")) part.style.flexGrow = part.dataset.share;
}

// ---- upload ----------------------------------------------------------------------------------------

function setUploadState(state, text) {
  $("upload-form").dataset.state = state;
  $("progress-text").textContent = text;
  $("upload").disabled = state === "sending" || state === "importing";
  $("cancel").disabled = !(state === "sending" || state === "importing");
}

function chosen() {
  const file = $("csv").files[0];
  showError($("upload-error"), null);
  $("progress").value = 0;
  setUploadState("idle", file ? `${file.name}, ${bytes(file.size)}: ready to upload.` : "Choose a file to upload.");
}

async function startUpload(event) {
  event.preventDefault();
  const file = $("csv").files[0];
  showError($("upload-error"), null);
  if (!file) {
    showError($("upload-error"), new Error("choose the launch monitor's CSV export first"));
    $("csv").focus();
    return;
  }
  if (file.size > maxUpload) {
    showError($("upload-error"), new Error(`${file.name} is ${bytes(file.size)}; at most ${bytes(maxUpload)} (64 MiB) go in one upload — split the export by date`));
    setUploadState("failed", `${file.name} was not sent.`);
    return;
  }
  const before = new Set((model.sessions || []).map((r) => r.session.id));
  const progress = $("progress");
  progress.max = Math.max(1, file.size);
  progress.value = 0;
  progress.dataset.sent = "0";
  setUploadState("sending", `Sending ${file.name}: 0 B of ${bytes(file.size)}`);
  const sending = upload(`${api}/sessions`, file, {
    type: "text/csv",
    query: { location: $("location").value.trim(), "skip-bad-rows": $("skip-bad-rows").checked },
    onProgress: (sent, total) => {
      progress.max = Math.max(1, total);
      progress.value = sent;
      progress.dataset.sent = String(sent);
      if (sent < total) setUploadState("sending", `Sending ${file.name}: ${bytes(sent)} of ${bytes(total)}`);
    },
    onSent: () => setUploadState("importing", `Sent ${bytes(file.size)}; importing…`),
  });
  model.sending = sending;
  try {
    const result = await sending.done;
    const s = result.session;
    const clubs = (result.clubs || []).map((c) => c.analysis.club).join(", ");
    const skipped = result.bad_rows && result.bad_rows.length ? `; ${result.bad_rows.length} bad rows left out` : "";
    setUploadState("done", `Imported session ${s.id}: ${s.shot_count} shots (${clubs})${skipped}.`);
    $("upload-form").reset();
    await guarded($("sessions-error"), loadSessions);
    model.reveal = true;
    location.hash = `#session=${s.id}`;
  } catch (error) {
    if (error.status === "cancelled") {
      // The host stops the import when the connection closes; the list says whether one got in first.
      await guarded($("sessions-error"), loadSessions);
      renderSessions();
      const late = (model.sessions || []).find((r) => !before.has(r.session.id));
      setUploadState("cancelled", late
        ? `Cancelled too late: the host had already imported it as session ${late.session.id}.`
        : "Cancelled: nothing was stored.");
    } else {
      setUploadState("failed", `${file.name} was not imported.`);
      showError($("upload-error"), error);
    }
  } finally {
    model.sending = null;
  }
}

// ---- trends and dispersion -------------------------------------------------------------------------

function clubsSeen() {
  const clubs = new Set();
  for (const row of model.sessions || []) for (const c of row.clubs) clubs.add(c);
  return [...clubs];
}

async function loadTrends() {
  const clubs = clubsSeen();
  const select = $("club");
  if (!model.club || !clubs.includes(model.club)) model.club = clubs.includes("7i") ? "7i" : clubs[0] || "";
  select.replaceChildren(...clubs.map((c) => el("option", { value: c, selected: c === model.club }, c)));
  select.disabled = !clubs.length;
  if (!model.club) {
    model.trend = null; model.dispersion = null;
    renderTrends("No sessions yet: import one on the Sessions tab.");
    return;
  }
  // A newer choice (club, measurement) may be asked for before this answer comes: only the last is drawn.
  const asked = ++model.trendsAsked;
  const ok = await guarded($("trends-error"), async () => {
    const query = { club: model.club };
    const trendQuery = model.metric ? { ...query, "a-only": true, metric: model.metric } : query;
    const [trend, dispersion] = await Promise.all([
      call("GET", `${api}/trends`, { query: trendQuery }), call("GET", `${api}/dispersion`, { query })]);
    if (asked === model.trendsAsked) [model.trend, model.dispersion] = [trend, dispersion];
  });
  if (asked !== model.trendsAsked) return;
  renderTrends(ok ? "" : "Could not load the charts.");
}

/** The chart's box in CSS pixels (its room is laid out before the data comes), so text is drawn at its size. */
function box(node) {
  return { width: Math.max(280, Math.round(node.clientWidth)), height: Math.max(180, Math.round(node.clientHeight)) };
}

function renderTrends(note) {
  const t = model.trend, d = model.dispersion;
  const [label, unit, digits] = metrics[model.metric] || ["", "", 0];
  $("show").value = model.metric;
  $("trend-title").textContent = model.metric ? `${label} of the A shots over sessions` : "A share over sessions";
  $("trend-chart").replaceChildren(trendChart(t, { ...box($("trend-chart")), metric: model.metric, unit, digits }));
  $("dispersion-chart").replaceChildren(dispersionChart(d, box($("dispersion-chart"))));
  if (!t) { $("trend-summary").textContent = note; $("dispersion-summary").textContent = ""; return; }
  const shown = (t.points || []).filter((p) => p.a_percent !== null && p.a_percent !== undefined).length;
  const excluded = (t.excluded || []).length;
  const mean = model.metric && t.weighted_a_only_averages && t.weighted_a_only_averages.means
    ? t.weighted_a_only_averages.means[model.metric] : null;
  $("trend-summary").textContent = (model.metric
    ? `${t.club}: ${Number.isFinite(mean) ? `${mean.toFixed(digits)}${unit ? ` ${unit}` : ""}` : "–"} over the A shots of ${shown} sessions`
    : `${t.club}: ${percent(t.weighted_a_percent)} A over ${shown} sessions (weighted by shots)`)
    + `${excluded ? `; ${excluded} left out (under 5 shots)` : ""}.`;
  if (!d) { $("dispersion-summary").textContent = ""; return; }
  const side = d.side_mean === null || d.side_mean === undefined ? "–"
    : `${Math.abs(d.side_mean).toFixed(1)} yd ${d.side_mean < 0 ? "left" : "right"} ± ${(d.side_sd ?? 0).toFixed(1)}`;
  const carry = d.carry_mean === null || d.carry_mean === undefined ? "–" : `${d.carry_mean.toFixed(1)} ± ${(d.carry_sd ?? 0).toFixed(1)} yd`;
  $("dispersion-summary").textContent = `${d.kept} shots kept, ${d.mishits} mishits; carry ${carry}; side ${side}.`;
}

// ---- templates -------------------------------------------------------------------------------------

async function loadTemplates() {
  await guarded($("templates-error"), async () => {
    const data = await call("GET", `${api}/templates`, { query: { all: model.showHidden } });
    model.templates = data.templates || [];
  });
  renderTemplates();
}

function templateName(t) {
  return t.display_name || t.source || t.hash.slice(0, 12);
}

const metricWords = { ball_speed: ["ball speed", "mph"], smash_factor: ["smash", ""], spin_rate: ["spin", "rpm"],
  descent_angle: ["descent", "°"], carry: ["carry", "yd"] };

function thresholds(t) {
  return el("ul", { class: "thresholds" }, ...(t.thresholds || []).map((th) => {
    const [words, unit] = metricWords[th.metric] || [String(th.metric).replace("_", " "), ""];
    const sign = th.direction === "lower_is_better" ? "≤" : "≥";
    const value = (v) => `${v}${unit === "°" ? "°" : unit ? ` ${unit}` : ""}`;
    return el("li", {}, `${words}: A ${sign} ${value(th.a)}, B ${sign} ${value(th.b)}`);
  }));
}

function renderTemplates() {
  const list = $("templates");
  if (!model.templates) return;
  const clubs = [...new Set(model.templates.map((t) => t.club))];
  const filter = $("template-club");
  if (model.templateClub && !clubs.includes(model.templateClub)) model.templateClub = "";
  filter.replaceChildren(el("option", { value: "", selected: !model.templateClub }, "Every club"),
    ...clubs.map((c) => el("option", { value: c, selected: c === model.templateClub }, c)));
  const shown = model.templates.filter((t) => !model.templateClub || t.club === model.templateClub);
  if (!shown.length) { list.replaceChildren(el("li", { class: "muted" }, "No templates.")); return; }
  const focused = model.refocus || (document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focusKey : null);
  model.refocus = null;
  list.replaceChildren(...shown.map((t) => {
    const name = templateName(t);
    const key = (action) => `${t.hash}:${action}`;
    const editing = model.editing && model.editing.hash === t.hash ? model.editing.kind : null;
    const marks = [t.active ? "Active" : null, t.hidden ? "Hidden" : null].filter(Boolean);
    const item = el("li", { class: `template${t.active ? " active" : ""}${t.hidden ? " hidden-template" : ""}`, "data-hash": t.hash },
      el("h3", {}, name, ...marks.map((m) => el("span", { class: `badge ${m.toLowerCase()}` }, m))),
      el("p", { class: "sub" }, `${t.club} · ${t.hash.slice(0, 12)}`),
      thresholds(t),
      el("div", { class: "row actions" },
        el("button", { type: "button", "data-focus-key": key("activate"), disabled: t.active || t.hidden,
          "aria-label": `Make ${name} the active template for ${t.club}`, onclick: () => templateAction(t, "activate") },
        t.active ? "Active" : "Activate"),
        el("button", { type: "button", "data-focus-key": key("hide"), "aria-label": `${t.hidden ? "Show" : "Hide"} ${name}`,
          onclick: () => templateAction(t, "hide", { unhide: t.hidden }) }, t.hidden ? "Show" : "Hide"),
        el("button", { type: "button", "data-focus-key": key("rename"), "aria-expanded": editing === "rename" ? "true" : "false",
          "aria-label": `Rename ${name}`, onclick: () => edit(t, "rename") }, "Rename"),
        el("button", { type: "button", "data-focus-key": key("duplicate"), "aria-expanded": editing === "duplicate" ? "true" : "false",
          "aria-label": `Duplicate ${name}`, onclick: () => edit(t, "duplicate") }, "Duplicate")),
      editing ? editForm(t, editing) : null,
      el("p", { class: "error inline", role: "alert", hidden: !model.templateErrors.has(t.hash) }));
    showError(item.querySelector(".error"), model.templateErrors.get(t.hash) || null);
    return item;
  }));
  const again = focused && list.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
  // A button that became disabled (Activate) hands the focus to its neighbour.
  if (again) (again.disabled ? again.nextElementSibling || again : again).focus();
}

function editForm(t, kind) {
  const id = `${kind}-${t.hash.slice(0, 12)}`;
  const form = el("form", { class: "edit", "data-kind": kind, onsubmit: (event) => {
    event.preventDefault();
    const name = form.querySelector(`#${id}`).value.trim();
    if (kind === "rename") templateAction(t, "rename", { name });
    else {
      const club = form.querySelector(`#${id}-club`).value.trim();
      templateAction(t, "duplicate", { name: name || undefined, club: club && club !== t.club ? club : undefined });
    }
  } },
  el("label", { for: id }, kind === "rename" ? `New name for ${templateName(t)}` : "Name of the copy"),
  el("input", { id, value: kind === "rename" ? (t.display_name || "") : `${templateName(t)} (copy)`, autocomplete: "off", maxlength: 200 }),
  kind === "duplicate" ? el("label", { for: `${id}-club` }, "Club of the copy") : null,
  kind === "duplicate" ? el("input", { id: `${id}-club`, value: t.club, autocomplete: "off", maxlength: 40 }) : null,
  el("div", { class: "row actions" },
    el("button", { type: "submit", class: "primary" }, kind === "rename" ? "Save name" : "Make the copy"),
    el("button", { type: "button", onclick: () => { model.editing = null; renderTemplates(); } }, "Cancel")));
  return form;
}

function edit(t, kind) {
  model.editing = model.editing && model.editing.hash === t.hash && model.editing.kind === kind ? null : { hash: t.hash, kind };
  renderTemplates();
  const input = document.getElementById(`${kind}-${t.hash.slice(0, 12)}`);
  if (input && model.editing) { input.focus(); input.select(); }
}

async function templateAction(t, action, body) {
  model.templateErrors.delete(t.hash);
  model.refocus = `${t.hash}:${action}`;
  try {
    await call("POST", `${api}/templates/${encodeURIComponent(t.hash)}/${action}`,
      action === "activate" ? {} : { body: Object.fromEntries(Object.entries(body || {}).filter(([, v]) => v !== undefined)) });
    model.editing = null;
  } catch (error) {
    model.templateErrors.set(t.hash, error);
  }
  await loadTemplates();
}

// ---- wiring ----------------------------------------------------------------------------------------

$("csv").addEventListener("change", chosen);
$("upload-form").addEventListener("submit", startUpload);
$("cancel").addEventListener("click", () => { if (model.sending) model.sending.cancel(); });
function trendsHash() {
  return `#trends&club=${encodeURIComponent($("club").value)}${$("show").value ? `&show=${$("show").value}` : ""}`;
}
$("club").addEventListener("change", () => { location.hash = trendsHash(); });
$("show").addEventListener("change", () => { location.hash = trendsHash(); });
$("template-club").addEventListener("change", () => { model.templateClub = $("template-club").value; renderTemplates(); });
$("show-hidden").addEventListener("change", () => { model.showHidden = $("show-hidden").checked; loadTemplates(); });
window.addEventListener("hashchange", () => { show(); });
setUploadState("idle", "Choose a file to upload.");

show().finally(() => {
  document.body.dataset.ready = "1";
  performance.mark("clubhouse:rendered");   // the first full view (the browser tests report it)
});

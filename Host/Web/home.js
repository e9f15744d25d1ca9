// The home page: the site's panels, and pairing when this browser is not paired yet.
import { el, pair, session, showError } from "/ui/_/clubhouse.js";

const panels = document.getElementById("panels");
const pairing = document.getElementById("pairing");
const who = document.getElementById("who");

function render(state) {
  who.textContent = state.paired ? `${state.name} · ${state.site}` : `not paired · ${state.site}`;
  pairing.hidden = state.paired;
  panels.replaceChildren(...(state.panels.length
    ? state.panels.map((p) => el("li", {}, el("a", { href: p.path, "data-alias": p.alias },
        el("strong", {}, p.name || p.alias), el("span", { class: "muted" }, p.summary || ""))))
    : [el("li", { class: "muted" }, "No plugin at this site has a panel.")]));
}

async function load() {
  try {
    render(await session());
    showError(document.getElementById("error"), null);
  } catch (error) {
    panels.replaceChildren();
    showError(document.getElementById("error"), error);
  }
}

document.getElementById("pair-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = document.getElementById("pair-button");
  const line = document.getElementById("pair-error");
  button.disabled = true;
  try {
    await pair(document.getElementById("code").value);
    showError(line, null);
    await load();
  } catch (error) {
    showError(line, error);
  } finally {
    button.disabled = false;
  }
});

// The pairing URL (`clubhouse token pair` prints it, and its QR code): /pair#code=… pairs at once.
async function start() {
  const code = new URLSearchParams(location.hash.slice(1)).get("code");
  if (code) {
    history.replaceState(null, "", "/");
    try {
      await pair(code);
    } catch (error) {
      showError(document.getElementById("pair-error"), error);
    }
  }
  await load();
  performance.mark("clubhouse:rendered");
}

start();

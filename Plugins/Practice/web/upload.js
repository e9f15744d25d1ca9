// upload.js — sends a file as a request's body with XMLHttpRequest, so the page sees the bytes go up
// (fetch has no upload progress) and can cancel. The host writes the body to a private file and hands
// it to the plugin's command as its path argument (Host/HTTP.md, "Plugins' routes").
import { ClubhouseError } from "/ui/_/clubhouse.js";

/**
 * Starts `POST path?query` with `file` as the body. `onProgress(sent, total)` sees the bytes sent;
 * `onSent()` is called once every byte is up (the host is importing). Answers `{ done, cancel }`:
 * `done` resolves with the reply's data or rejects with a ClubhouseError ("cancelled" after `cancel()`).
 */
export function upload(path, file, { query, type, onProgress, onSent } = {}) {
  const xhr = new XMLHttpRequest();
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query || {})) {
    if (value === undefined || value === null || value === false || value === "") continue;
    params.append(key, value === true ? "true" : String(value));
  }
  const url = params.toString() ? `${path}?${params}` : path;
  const done = new Promise((resolve, reject) => {
    xhr.open("POST", url);
    xhr.setRequestHeader("Content-Type", type || file.type || "text/csv");
    xhr.setRequestHeader("Accept", "application/json");
    // The host keeps the body under this name, so the plugin's messages name the file chosen here.
    if (file.name) {
      const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, "_");
      xhr.setRequestHeader("Content-Disposition", `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    }
    xhr.upload.addEventListener("progress", (event) => {
      if (onProgress) onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    });
    xhr.upload.addEventListener("load", () => { if (onSent) onSent(); });
    xhr.addEventListener("abort", () => reject(new ClubhouseError("cancelled", "upload cancelled", 499)));
    xhr.addEventListener("error", () => reject(new ClubhouseError("io", "the host cannot be reached; check the connection and try again", 0)));
    xhr.addEventListener("load", () => {
      let parsed = null;
      try { parsed = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch (_) { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) { resolve(parsed); return; }
      const error = parsed && parsed.error ? parsed.error : {};
      reject(new ClubhouseError(error.status || "error", error.message || `POST ${path} answered ${xhr.status}`, xhr.status));
    });
    xhr.send(file);
  });
  return { done, cancel: () => xhr.abort() };
}

/** "12.3 KB", "4.0 MB": bytes for a person (1 KB = 1000 bytes, as file managers show sizes). */
export function bytes(n) {
  if (n < 1000) return `${n} B`;
  const units = ["KB", "MB", "GB"];
  let value = n / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return `${value.toFixed(1)} ${units[unit]}`;
}

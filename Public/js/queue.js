// Actions that survive a lost network: a tally tap, a plate spot. Each gets
// a random id and is written to localStorage before it is sent, so a reload
// or a dead connection loses nothing; it is sent when the network returns
// (the `online` event, page load, the page coming back into view, and a
// retry timer that backs off) and leaves the queue only once the server
// answered. The server counts an id once per person, so sending twice is
// safe.
//
// A feature registers what to do with answers (`handle(kind, handlers)`),
// then `add(kind, form, submitter, meta)` for each action:
//   done(entry, response)    2xx: the change landed (or had landed before)
//   refused(entry, response) any other 4xx: it never will
//   ended(entry, reason)     401 signed-out, or 404 gone for its scope
//   waiting(entries)         sending failed for now; these are still queued
// Entries are kept per session (a key drawn from the page's form token), so
// someone else signing in on this browser never sends another's queue.

const ENDING = "X-Kith-Ending";
const handlers = new Map();
let flushing = false;
let retryTimer = 0;
let backoff = 0;
const BACKOFF_MS = [2000, 4000, 8000, 15000, 30000, 60000];

// The session's form token: sent with each action, and (hashed) the name
// of this session's queue.
function token() {
  return document.querySelector("form[data-offline-queue] input[name=_csrf], input[name=_csrf]")?.value || "";
}

// FNV-1a, twice with different offsets: a short name for the queue that
// does not spell out the token.
function hash(text) {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

export function owner() {
  const current = token();
  return current ? hash(current) : "";
}

const storageKey = () => `kith.offline-queue.${owner()}`;

function load() {
  if (!owner()) return [];
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey()) || "[]");
    return Array.isArray(stored) ? stored : [];
  } catch {
    return [];
  }
}

function save(entries) {
  try {
    if (entries.length) localStorage.setItem(storageKey(), JSON.stringify(entries));
    else localStorage.removeItem(storageKey());
    return true;
  } catch {
    return false; // storage full or refused: the action is sent from memory only
  }
}

let memory = null; // used only when localStorage refuses
const read = () => memory ?? load();
function write(entries) {
  memory = save(entries) ? null : entries;
}

function remove(ids) {
  write(read().filter((entry) => !ids.includes(entry.id)));
}

function randomID() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function handle(kind, callbacks) {
  handlers.set(kind, callbacks);
}

// The queued entries of `kind`, oldest first.
export function entries(kind) {
  return read().filter((entry) => entry.kind === kind);
}

// Queues the form's action and starts sending; the stored entry.
export function add(kind, form, submitter, meta = {}) {
  const fields = [...new FormData(form, submitter)].filter(([name, value]) => name !== "_csrf" && typeof value === "string");
  const entry = { id: randomID(), kind, action: form.action, fields, meta, at: Date.now() };
  write([...read(), entry]);
  flush();
  return entry;
}

// True when this page is the service worker's copy from an earlier visit.
export const isOfflineCopy = () => Boolean(document.querySelector("[data-offline-copy]"));
// Taken once: a swapped-in answer replaces the note, not the page's age.
const offlineCopy = isOfflineCopy();

function call(kind, name, ...args) {
  try {
    handlers.get(kind)?.[name]?.(...args);
  } catch (error) {
    console.warn(error);
  }
}

function ended(reason, dropped) {
  remove(dropped.map((entry) => entry.id));
  for (const entry of dropped) call(entry.kind, "ended", entry, reason);
  document.dispatchEvent(new CustomEvent("kith:ended", { detail: { reason } }));
}

function later() {
  clearTimeout(retryTimer);
  const wait = BACKOFF_MS[Math.min(backoff, BACKOFF_MS.length - 1)];
  backoff++;
  retryTimer = setTimeout(flush, wait);
  const waiting = read();
  for (const kind of new Set(waiting.map((entry) => entry.kind))) {
    call(kind, "waiting", waiting.filter((entry) => entry.kind === kind));
  }
}

// Sends what is queued, oldest first, one at a time.
export async function flush() {
  if (flushing) return;
  flushing = true;
  let answered = false;
  try {
    for (;;) {
      // Every kind is sent, whichever page this is; a kind whose script is
      // not here simply has nothing on screen to update.
      const entry = read()[0];
      if (!entry) break;
      // Known to be offline: no request at all until `online` (onLine true may still fail).
      if (navigator.onLine === false) {
        later();
        return;
      }
      const body = new URLSearchParams(entry.fields);
      body.set("_csrf", token());
      body.set("client_id", entry.id);
      let response;
      try {
        response = await fetch(entry.action, {
          method: "POST", body, credentials: "same-origin", headers: { "X-Kith-Enhanced": "1" },
        });
      } catch {
        later(); // no network: try again later
        return;
      }
      answered = true;
      const ending = response.headers.get(ENDING);
      if (response.status === 401 && ending) {
        ended(ending, read()); // the session is over: nothing queued here can be sent
        return;
      }
      if (response.status === 404 && ending) {
        ended(ending, read().filter((other) => other.action === entry.action));
        continue;
      }
      if (response.status >= 500 || response.status === 429) {
        later(); // busy or broken for now: the action waits
        return;
      }
      remove([entry.id]);
      backoff = 0;
      call(entry.kind, response.ok ? "done" : "refused", entry, response);
    }
    clearTimeout(retryTimer);
    backoff = 0;
  } finally {
    flushing = false;
  }
  // The old copy has done its job once everything is sent: show the page as it is now.
  if (offlineCopy && answered && !read().length) location.reload();
}

// The server forgets an id after a week; an action older than this is
// dropped rather than risk counting twice.
const KEPT_MS = 6 * 24 * 60 * 60 * 1000;

function prune() {
  const cutoff = Date.now() - KEPT_MS;
  const stale = read().filter((entry) => !(entry.at > cutoff));
  if (stale.length) remove(stale.map((entry) => entry.id));
  // Queues of sessions that ended on this browser without saying so.
  try {
    for (const key of Object.keys(localStorage)) {
      if (!key.startsWith("kith.offline-queue.") || key === storageKey()) continue;
      const entries = JSON.parse(localStorage.getItem(key) || "[]");
      if (!Array.isArray(entries) || entries.every((entry) => !(entry.at > cutoff))) localStorage.removeItem(key);
    }
  } catch { /* unreadable storage: nothing to tidy */ }
}
prune(); // before any page script shows what is queued

// Starts sending whenever the network may be back.
let started = false;
export function start() {
  if (started) return;
  started = true;
  window.addEventListener("online", async () => {
    backoff = 0;
    await flush();
    if (offlineCopy && !flushing && !read().length) location.reload();
  });
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") flush(); });
  flush();
}

// ---------------------------------------------------------------------------
// The service worker keeps the pages with queued forms and their assets, so
// a reload without network still shows them (marked as an old copy).

export function registerWorker() {
  const holder = document.querySelector("[data-worker]");
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const registering = holder?.dataset.worker
    ? navigator.serviceWorker.register(holder.dataset.worker, { scope: holder.dataset.workerScope || undefined })
    : navigator.serviceWorker.getRegistration();
  registering.then(async (registration) => {
    if (!registration || isOfflineCopy() || !document.querySelector("form[data-offline-queue]")) return;
    // A page the worker did not serve (the first visit) is handed to it to keep.
    if (navigator.serviceWorker.controller) return;
    const ready = await navigator.serviceWorker.ready;
    const assets = [
      ...performance.getEntriesByType("resource").map((resource) => resource.name),
      ...[...document.querySelectorAll("script[src], link[href], img[src]")].map((element) => element.src || element.href),
    ];
    ready.active?.postMessage({ type: "kith-keep", url: location.href, assets });
  }, () => { /* no worker: taps still queue, only the offline reload is missing */ });
}

// Spoken feedback for what only shows (a count that waits, a shake).
let announcer = null;
export function announce(text) {
  if (!announcer) {
    announcer = document.createElement("p");
    announcer.className = "visually-hidden";
    announcer.setAttribute("role", "status");
    document.body.append(announcer);
  }
  announcer.textContent = "";
  setTimeout(() => { announcer.textContent = text; }, 50);
}

// Tells the worker to drop every kept page (the session ended).
export function forgetPages() {
  navigator.serviceWorker?.controller?.postMessage({ type: "kith-forget" });
}

document.addEventListener("kith:ended", (event) => {
  if (event.detail?.reason === "signed-out") forgetPages();
});

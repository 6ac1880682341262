// Tallies, enhanced. Without this file every count is a form that posts and
// redirects back. With it: an increment shows at once (and waits on this
// device when there is no network) and the row is swapped for the server's,
// a view-only count shakes, fireworks go off (a sparkle
// when motion is reduced), each tally wears this device's tint, and a list
// sorted by "last updated" re-sorts only once nobody is touching it.

import * as queue from "./queue.js";

const motion = import("./motion.js").catch(() => null);
const reduced = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

// ---------------------------------------------------------------------------
// Fireworks: at most three shows at once, however fast the taps.

let flying = 0;
const MAX_FIREWORKS = 3;

async function celebrate(element) {
  if (flying >= MAX_FIREWORKS) return;
  const module = await motion;
  if (!module) return;
  flying++;
  if (reduced()) module.sparkle(element);
  else module.fireworks({ bursts: 2, duration: 600 });
  setTimeout(() => { flying--; }, 1400);
}

// ---------------------------------------------------------------------------
// Spoken feedback for what only shows (the view-only shake): queue.js's.

const { announce } = queue;

function shake(element) {
  element.classList.remove("shake");
  void element.offsetWidth; // restart the animation
  element.classList.add("shake");
  element.addEventListener("animationend", () => element.classList.remove("shake"), { once: true });
}

// ---------------------------------------------------------------------------
// Increments
//
// A tap is queued (queue.js) before it is sent, so one made offline waits
// on this device, survives a reload and is sent when the network returns;
// the server counts each tap's id once. The count shows the server's number
// plus the taps still queued, with "+3 waiting for network" while sending
// fails. A refused tap rolls back: view only shakes, an ended session or a
// tally that is gone tells the page (`kith:ended`), anything else says so.

const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

// Taps that could not be sent yet (not those merely in flight).
const waiting = new Set();

// Shows a count (Arabic digits only; the other styles are drawn by the
// server and arrive with its answer) and says it in the button's label.
function showCount(form, button, count) {
  button.dataset.count = String(count);
  const label = button.getAttribute("aria-label") || "";
  button.setAttribute("aria-label", label.replace(/, [\d,]+, increment$/, `, ${grouped(count)}, increment`));
  const digits = button.querySelector(".numeral--arabic");
  if (form.dataset.style === "arabic" && digits) digits.textContent = grouped(count);
}

function bounce(button) {
  button.classList.remove("is-bumped");
  void button.offsetWidth;
  button.classList.add("is-bumped");
}

// Every copy of a tally on the page (its row, its face) shows the server's
// count plus its queued taps, marked while they wait for the network.
function showQueued(id) {
  if (!id) return;
  const queued = queue.entries("tally").filter((entry) => entry.meta.tally === id);
  const stuck = queued.filter((entry) => waiting.has(entry.id)).length;
  for (const holder of document.querySelectorAll(`[data-tally="${CSS.escape(id)}"]`)) {
    const form = holder.querySelector("form[data-increment]");
    const button = form?.querySelector("button");
    if (!button) continue;
    if (button.dataset.server === undefined) button.dataset.server = button.dataset.count;
    showCount(form, button, Number(button.dataset.server) + queued.length);
    let mark = form.querySelector(".tally-pending");
    if (!stuck) {
      mark?.remove();
      continue;
    }
    if (!mark) {
      mark = document.createElement("span");
      mark.className = "tally-pending";
      form.append(mark);
    }
    mark.textContent = `+${stuck} waiting for network`;
  }
}

const queuedTallies = () => new Set(queue.entries("tally").map((entry) => entry.meta.tally));

// Replaces a row or face with the server's, unless a newer one is already shown.
function replace(current, fresh) {
  if (!current || !fresh || fresh.id !== current.id) return;
  if (Number(fresh.dataset.version) < Number(current.dataset.version)) return;
  const hadFocus = current.contains(document.activeElement);
  const node = document.importNode(fresh, true);
  current.replaceWith(node);
  tint(node);
  if (hadFocus) node.querySelector(".tally-count")?.focus({ preventScroll: true });
}

async function refusal(response) {
  const type = response.headers.get("Content-Type") || "";
  const text = type.startsWith("text/plain") ? (await response.text()).trim() : "";
  return text && text.length < 200 ? text : "The server refused it.";
}

queue.handle("tally", {
  async done(entry, response) {
    waiting.delete(entry.id);
    const text = await response.text();
    const fresh = new DOMParser().parseFromString(text, "text/html").body.firstElementChild;
    if (fresh) replace(document.getElementById(fresh.id), fresh);
    showQueued(entry.meta.tally);
  },
  async refused(entry, response) {
    waiting.delete(entry.id);
    showQueued(entry.meta.tally);
    const button = document.querySelector(`[data-tally="${CSS.escape(entry.meta.tally)}"] .tally-count`);
    if (response.status === 403) {
      if (button) shake(button);
      announce("This tally is view only.");
      return;
    }
    announce(`Not counted: ${await refusal(response)}`);
  },
  ended(entry) {
    waiting.delete(entry.id);
    showQueued(entry.meta.tally);
  },
  waiting(entries) {
    const fresh = entries.some((entry) => !waiting.has(entry.id));
    for (const entry of entries) waiting.add(entry.id);
    for (const id of new Set(entries.map((entry) => entry.meta.tally))) showQueued(id);
    if (fresh) announce("No network: your tap is saved on this device and counts when you're back online.");
  },
});

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-increment") || !window.fetch) return;
  const button = form.querySelector("button");
  const holder = form.closest("[data-tally]");
  const id = holder?.dataset.tally;
  if (!id || !button) return;
  event.preventDefault();
  queue.add("tally", form, event.submitter || undefined, { tally: id });
  showQueued(id);
  bounce(button);
  if (holder.hasAttribute("data-fireworks")) celebrate(button);
});

// A view-only count says so, gently.
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element && event.target.closest("[data-view-only]");
  if (!button) return;
  shake(button);
  announce("View only: only the owner and friends who can edit change this count.");
});

// ---------------------------------------------------------------------------
// Per-device tints, kept in this browser only.

const tintKey = (id) => `kith.tally-tint.${id}`;

function storedTint(id) {
  try { return Number(localStorage.getItem(tintKey(id))) || 0; } catch { return 0; }
}

function tint(root) {
  const holders = root.matches?.("[data-tally]") ? [root] : [...root.querySelectorAll("[data-tally]")];
  for (const element of holders) {
    for (const name of [...element.classList]) if (name.startsWith("tint-")) element.classList.remove(name);
    const chosen = storedTint(element.dataset.tally);
    if (chosen) element.classList.add(`tint-${chosen}`);
  }
}

for (const picker of document.querySelectorAll("[data-tally-colours]")) {
  const id = picker.dataset.tallyColours;
  const group = picker.querySelector(".tally-swatches");
  group.hidden = false;
  const mark = () => {
    for (const swatch of group.querySelectorAll("[data-tint]")) {
      swatch.setAttribute("aria-pressed", String(Number(swatch.dataset.tint) === storedTint(id)));
    }
  };
  group.addEventListener("click", (event) => {
    const swatch = event.target instanceof Element && event.target.closest("[data-tint]");
    if (!swatch) return;
    try {
      if (swatch.dataset.tint === "0") localStorage.removeItem(tintKey(id));
      else localStorage.setItem(tintKey(id), swatch.dataset.tint);
    } catch { /* storage refused: the tint lasts this page */ }
    mark();
    tint(document);
  });
  mark();
}

// ---------------------------------------------------------------------------
// Arrivals: a changed tally flashes and, when its fireworks are on,
// celebrates — on landing and when a live swap brings it. Then the page
// tells the server what was shown (at the URL the flash names), so it does
// not flash again: a page view itself never writes.

function arrivals(root) {
  const flashing = root.matches?.("[data-flash]") ? [root] : [...root.querySelectorAll("[data-flash]")];
  for (const element of flashing) {
    if (element.hasAttribute("data-fireworks")) celebrate(element);
  }
  const token = document.querySelector("input[name=_csrf]")?.value;
  if (!flashing.length || !token || !window.fetch) return;
  const body = new URLSearchParams();
  for (const element of flashing) body.append("tally", `${element.dataset.tally}:${element.dataset.version}`);
  fetch(flashing[0].dataset.flash, {
    method: "POST", body, credentials: "same-origin", headers: { "X-CSRF-Token": token },
  }).catch(() => { /* offline: it flashes once more next time */ });
}

// ---------------------------------------------------------------------------
// Order: rows keep their place while someone is using the list; a new
// order is applied once it has been idle for a moment.

let lastTouch = 0;
let reorderTimer = 0;
const IDLE_MS = 2500;
for (const type of ["pointerdown", "keydown", "focusin", "wheel", "touchstart"]) {
  document.addEventListener(type, () => { lastTouch = Date.now(); }, { passive: true, capture: true });
}

function reorderWhenIdle() {
  clearTimeout(reorderTimer);
  const wait = lastTouch + IDLE_MS - Date.now();
  if (wait > 0) { reorderTimer = setTimeout(reorderWhenIdle, wait); return; }
  for (const list of document.querySelectorAll(".tally-list[data-sort]")) {
    const key = list.dataset.sort === "created" ? "created" : "updated";
    const rows = [...list.children];
    const sorted = [...rows].sort((a, b) =>
      Number(b.dataset[key]) - Number(a.dataset[key]) || Number(b.dataset.version) - Number(a.dataset.version) || Number(b.dataset.tally) - Number(a.dataset.tally));
    if (sorted.every((row, index) => row === rows[index])) continue;
    const focused = document.activeElement;
    list.append(...sorted);
    if (focused && list.contains(focused)) focused.focus({ preventScroll: true });
  }
}

document.addEventListener("kith:swapped", (event) => {
  const element = event.target;
  if (!(element instanceof Element)) return;
  tint(element);
  arrivals(element);
  // A live refresh draws the server's count: the queued taps go back on top.
  for (const id of queuedTallies()) showQueued(id);
  reorderWhenIdle();
});

tint(document);
arrivals(document);

// Taps left from an earlier visit wait for the network until shown otherwise.
for (const entry of queue.entries("tally")) waiting.add(entry.id);
for (const id of queuedTallies()) showQueued(id);
queue.start();
queue.registerWorker();

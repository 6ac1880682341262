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
// Taps the server has answered whose answer is not on screen yet: queue.js
// forgets a tap when the answer's headers arrive, and until its body is
// drawn the count must still include it, or a tap meanwhile would show
// one less than before.
const landing = new Map();

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
  const answered = [...landing.values()].filter((tally) => tally === id).length;
  const stuck = queued.filter((entry) => waiting.has(entry.id)).length;
  for (const holder of document.querySelectorAll(`[data-tally="${CSS.escape(id)}"]`)) {
    const form = holder.querySelector("form[data-increment]");
    const button = form?.querySelector("button");
    if (!button) continue;
    if (button.dataset.server === undefined) button.dataset.server = button.dataset.count;
    // Each tap adds the owner's step; the server adds the same (it never
    // takes the amount from the page), so the shown count matches its answer.
    const step = Number(form.dataset.step) || 1;
    showCount(form, button, Number(button.dataset.server) + (queued.length + answered) * step);
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
    mark.textContent = `+${grouped(stuck * step)} waiting for network`;
  }
}

const queuedTallies = () => new Set(queue.entries("tally").map((entry) => entry.meta.tally));

// The newest copy of each row and face shown so far, by element id, with
// its version. A count never steps back: whatever arrives (a tap's answer,
// a live refresh of the row or of the whole list) with an older version
// than one already shown is put back to the newer copy.
const newest = new Map();

function holdersIn(root) {
  return root.matches?.("[data-tally][data-version]") ? [root] : [...root.querySelectorAll("[data-tally][data-version]")];
}

function remember(holder) {
  const version = Number(holder.dataset.version);
  const known = newest.get(holder.id);
  if (!known || version >= known.version) newest.set(holder.id, { version, copy: holder.cloneNode(true) });
}

// Puts back the newest copy of every row or face in root that is older;
// says whether it put any back.
function keepNewest(root) {
  let restored = false;
  for (const holder of holdersIn(root)) {
    const known = newest.get(holder.id);
    if (known && Number(holder.dataset.version) < known.version) {
      const hadFocus = holder.contains(document.activeElement);
      const copy = known.copy.cloneNode(true);
      holder.replaceWith(copy);
      if (hadFocus) copy.querySelector(".tally-count")?.focus({ preventScroll: true });
      restored = true;
    } else {
      remember(holder);
    }
  }
  return restored;
}

// Replaces a row or face with the server's, unless a newer one is already shown.
function replace(current, fresh) {
  if (!current || !fresh || fresh.id !== current.id) return;
  if (Number(fresh.dataset.version) < Number(current.dataset.version)) return;
  if (Number(fresh.dataset.version) < (newest.get(fresh.id)?.version ?? 0)) return;
  const hadFocus = current.contains(document.activeElement);
  const node = document.importNode(fresh, true);
  current.replaceWith(node);
  remember(node);
  tint(node);
  if (hadFocus) node.querySelector(".tally-count")?.focus({ preventScroll: true });
}

// Says a refusal beside every copy of the count (the maximum reached), until
// the row is next drawn by the server.
function note(id, text) {
  for (const holder of document.querySelectorAll(`[data-tally="${CSS.escape(id)}"]`)) {
    const form = holder.querySelector("form[data-increment]");
    if (!form) continue;
    let mark = form.querySelector(".tally-note");
    if (!mark) {
      mark = document.createElement("p");
      mark.className = "tally-note";
      form.append(mark);
    }
    mark.textContent = text;
  }
}

async function refusal(response) {
  const type = response.headers.get("Content-Type") || "";
  let text = "";
  if (type.startsWith("text/plain")) text = (await response.text()).trim();
  // An error page: its message is the paragraph after the status code.
  else if (type.startsWith("text/html")) {
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    text = page.querySelector(".error-page__code + h1 + p")?.textContent.trim() || "";
  }
  return text && text.length < 200 ? text : "The server refused it.";
}

queue.handle("tally", {
  async done(entry, response) {
    waiting.delete(entry.id);
    landing.set(entry.id, entry.meta.tally);
    let text = "";
    try { text = await response.text(); } finally { landing.delete(entry.id); }
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
    const reason = await refusal(response);
    if (response.status === 422) note(entry.meta.tally, reason);
    announce(`Not counted: ${reason}`);
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

function inView(element) {
  const box = element.getBoundingClientRect();
  return box.bottom > 0 && box.top < innerHeight;
}

// Scrolls a changed row into view, unless the person is busy elsewhere on
// the page or came back to a row of their own (the address names it).
async function bringIntoView(element, { onLanding }) {
  if (inView(element)) return true;
  const anchored = onLanding && location.hash.length > 1 && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (anchored || (!onLanding && Date.now() - lastTouch < IDLE_MS)) return false;
  const smooth = !reduced();
  element.scrollIntoView({ block: "center", behavior: smooth ? "smooth" : "auto" });
  if (smooth) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 800);
      addEventListener("scrollend", () => { clearTimeout(timer); resolve(); }, { once: true });
    });
  }
  return inView(element);
}

// Where a changed row was when it celebrated, for tests; nobody sees it.
function celebrateArrival(element) {
  element.dataset.celebrated = inView(element) ? "in-view" : "off-screen";
  celebrate(element);
}

function arrivals(root, { onLanding = false } = {}) {
  const flashing = root.matches?.("[data-flash]") ? [root] : [...root.querySelectorAll("[data-flash]")];
  // The first changed row is brought into view, then celebrates; the rest
  // celebrate only where they can be seen.
  flashing.forEach((element, index) => {
    if (!element.hasAttribute("data-fireworks")) return;
    if (index === 0) bringIntoView(element, { onLanding }).then((shown) => { if (shown) celebrateArrival(element); });
    else if (inView(element)) celebrateArrival(element);
  });
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
  // An older copy than one shown is put back; the newer one has arrived already.
  if (keepNewest(element) && !element.isConnected) {
    tint(document);
    for (const id of queuedTallies()) showQueued(id);
    return;
  }
  tint(element);
  arrivals(element);
  // A live refresh draws the server's count: the queued taps go back on top.
  for (const id of queuedTallies()) showQueued(id);
  reorderWhenIdle();
});

keepNewest(document);
tint(document);
arrivals(document, { onLanding: true });

// Taps left from an earlier visit wait for the network until shown otherwise.
for (const entry of queue.entries("tally")) waiting.add(entry.id);
for (const id of queuedTallies()) showQueued(id);
queue.start();
queue.registerWorker();

// Tallies, enhanced. Without this file every count is a form that posts and
// redirects back. With it: an increment shows at once and the row is swapped
// for the server's, a view-only count shakes, fireworks go off (a sparkle
// when motion is reduced), each tally wears this device's tint, and a list
// sorted by "last updated" re-sorts only once nobody is touching it.

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
// Spoken feedback for what only shows (the view-only shake).

let announcer = null;
function announce(text) {
  if (!announcer) {
    announcer = document.createElement("p");
    announcer.className = "visually-hidden";
    announcer.setAttribute("role", "status");
    document.body.append(announcer);
  }
  announcer.textContent = "";
  setTimeout(() => { announcer.textContent = text; }, 50);
}

function shake(element) {
  element.classList.remove("shake");
  void element.offsetWidth; // restart the animation
  element.classList.add("shake");
  element.addEventListener("animationend", () => element.classList.remove("shake"), { once: true });
}

// ---------------------------------------------------------------------------
// Increments

const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

// Shows the new count before the server answers (Arabic digits only; the
// other styles are drawn by the server and arrive with its answer).
function bump(form, button) {
  const count = Number(button.dataset.count) + 1;
  button.dataset.count = String(count);
  const label = button.getAttribute("aria-label") || "";
  button.setAttribute("aria-label", label.replace(/, [\d,]+, increment$/, `, ${grouped(count)}, increment`));
  const digits = button.querySelector(".numeral--arabic");
  if (form.dataset.style === "arabic" && digits) digits.textContent = grouped(count);
  button.classList.remove("is-bumped");
  void button.offsetWidth;
  button.classList.add("is-bumped");
}

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

document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-increment") || !window.fetch) return;
  event.preventDefault();
  const button = form.querySelector("button");
  const holder = form.closest("[data-tally]");
  bump(form, button);
  if (holder && holder.hasAttribute("data-fireworks")) celebrate(button);
  let response;
  try {
    response = await fetch(form.action, {
      method: "POST", body: new FormData(form), credentials: "same-origin", headers: { "X-Kith-Enhanced": "1" },
    });
  } catch {
    form.submit(); // offline or a network error: let the browser try and say so
    return;
  }
  if (response.status === 403) {
    shake(button);
    announce("This tally is view only.");
    return;
  }
  if (!response.ok) {
    window.location.reload(); // gone, or refused: show the truth
    return;
  }
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  replace(holder && document.getElementById(holder.id), doc.body.firstElementChild);
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
  reorderWhenIdle();
});

tint(document);
arrivals(document);

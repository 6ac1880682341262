// Plate games, enhanced. Without this file every state on the map is a link
// to a confirm page and the by-name list is a plain form; with it a tap on
// the map spots the state at once (and waits on this device when there is
// no network), and the list gets a filter box.

import * as queue from "./queue.js";

const motion = import("./motion.js").catch(() => null);

// A tap on a state you haven't spotted submits the page's hidden form.
// A state you have spotted still opens its page, where you can undo; so
// does one someone else has on a shared board, which says who and asks
// before adding yours.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element && event.target.closest(".usmap--playable a[data-state], .usmap-chips a[data-state]");
  const form = document.getElementById("plate-map-form");
  if (!link || !form || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (link.classList.contains("usmap__state--mine") || link.classList.contains("usmap__state--others")) return;
  event.preventDefault();
  if (link.hasAttribute("data-pending")) return; // already waiting to be sent
  form.elements.state.value = link.dataset.state;
  if (form.requestSubmit) form.requestSubmit();
  else form.submit();
});

// The by-name list: type a few letters to narrow it ("rh" finds Rhode
// Island; "new" finds the four News). Matches the start of any word first,
// then anywhere in the name.
function wireFilter(root) {
  const wrapper = root.querySelector("[data-plate-filter]");
  const list = root.querySelector("#plate-list");
  if (!wrapper || !list || wrapper.dataset.wired) return;
  wrapper.dataset.wired = "true";
  wrapper.hidden = false;
  const input = wrapper.querySelector("input");
  const count = wrapper.querySelector("#plate-filter-count");

  function apply() {
    const query = input.value.trim().toLowerCase();
    const items = [...document.querySelectorAll("#plate-list [data-name]")];
    let shown = 0;
    for (const item of items) {
      const name = item.dataset.name;
      const code = (item.querySelector("button")?.value || "").toLowerCase();
      const match = !query || name.split(/\s+/).some((word) => word.startsWith(query)) || name.includes(query) || code === query;
      item.hidden = !match;
      if (match) shown++;
    }
    count.textContent = query ? (shown === 1 ? "1 state" : `${shown} states`) : "";
  }

  input.addEventListener("input", apply);
  // Enter picks the only match, or the first one.
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    const first = document.querySelector("#plate-list [data-name]:not([hidden]) button");
    if (first) first.focus();
  });
  // The list is swapped in after each spot: keep the filter applied.
  document.addEventListener("kith:swapped", (event) => {
    if (event.target instanceof Element && event.target.id === "plate-list") apply();
  });
}

wireFilter(document);

// The feed says "2 hours ago" on its own; hovering or long-pressing a time
// shows the clock time in the viewer's own time zone (from their settings).
function localTimes() {
  const feed = document.getElementById("plate-feed");
  const zone = feed && feed.dataset.timeZone;
  if (!zone) return;
  let format;
  try {
    format = new Intl.DateTimeFormat(undefined, { timeZone: zone, weekday: "short", day: "numeric", month: "short", hour: "numeric", minute: "2-digit" });
  } catch {
    return; // a zone this browser does not know: the relative time stands alone
  }
  for (const time of feed.querySelectorAll("time[datetime]")) {
    const instant = new Date(time.getAttribute("datetime"));
    if (!Number.isNaN(instant.getTime())) time.title = format.format(instant);
  }
}

localTimes();
document.addEventListener("kith:swapped", (event) => {
  if (event.target instanceof Element && event.target.id === "plate-feed") localTimes();
});

// ---------------------------------------------------------------------------
// Spots, queued
//
// The map's hidden form and the by-name list are marked `data-offline-queue`:
// a spot is queued (queue.js) before it is sent, shown as waiting on the map
// and in the list, and sent when the network returns; the server makes each
// spot's id once. The answer is the board (or list) page, whose parts are
// swapped in the way app.js swaps an enhanced form's.

const { announce } = queue;

const spotForm = () => document.querySelector("form[data-offline-queue]");
const waiting = new Set();

// The map's state and the list's button for each queued spot of this game
// show it as waiting; everything else shows what the server drew.
function showQueued() {
  const form = spotForm();
  const queued = form ? queue.entries("plate").filter((entry) => entry.action === form.action) : [];
  const states = new Set(queued.map((entry) => entry.meta.state));
  const targets = [
    ...document.querySelectorAll(".usmap--playable a[data-state], .usmap-chips a[data-state], #plate-list button[name=state]"),
  ];
  for (const element of targets) {
    const code = element.dataset.state || element.value;
    const pending = states.has(code);
    if (pending && !element.hasAttribute("data-pending")) {
      element.dataset.label = element.getAttribute("aria-label") || "";
      element.setAttribute("data-pending", "");
      const name = element.dataset.name || element.querySelector(".plate__state")?.textContent || code;
      element.setAttribute("aria-label", `${name}, spotted, waiting to be sent`);
    } else if (!pending && element.hasAttribute("data-pending")) {
      element.removeAttribute("data-pending");
      element.setAttribute("aria-label", element.dataset.label || "");
      delete element.dataset.label;
    }
  }
}

// Swaps in the parts of the answer this page shows, as app.js does.
async function swapFrom(html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const module = await motion;
  for (const id of ["plate-board", "plate-list", "plate-feed", "flashes"]) {
    const current = document.getElementById(id);
    const fresh = doc.getElementById(id);
    if (!current || !fresh) continue;
    const focused = document.activeElement?.id;
    const node = document.importNode(fresh, true);
    current.replaceWith(node);
    if (focused && node.querySelector(`#${CSS.escape(focused)}`)) document.getElementById(focused)?.focus({ preventScroll: true });
    module?.scan?.(node);
    node.dispatchEvent(new CustomEvent("kith:swapped", { bubbles: true }));
  }
}

const stateName = (code) =>
  document.querySelector(`[data-state="${CSS.escape(code)}"]`)?.dataset.name ||
  document.querySelector(`#plate-list button[value="${CSS.escape(code)}"] .plate__state`)?.textContent ||
  code;

queue.handle("plate", {
  async done(entry, response) {
    waiting.delete(entry.id);
    const type = response.headers.get("Content-Type") || "";
    if (type.startsWith("text/html") && spotForm()?.action === entry.action) await swapFrom(await response.text());
    showQueued();
  },
  refused(entry) {
    waiting.delete(entry.id);
    showQueued();
    announce(`Not saved — ${stateName(entry.meta.state)} wasn't spotted. Try again.`);
  },
  ended(entry) {
    waiting.delete(entry.id);
    showQueued();
  },
  waiting(entries) {
    const fresh = entries.filter((entry) => !waiting.has(entry.id));
    for (const entry of entries) waiting.add(entry.id);
    showQueued();
    if (fresh.length) announce(`No network: ${stateName(fresh[0].meta.state)} is saved on this device and is sent when you're back online.`);
  },
});

// Before app.js sees the submit (it would post the form itself).
window.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-offline-queue") || !window.fetch) return;
  const submitter = event.submitter || undefined;
  const state = submitter?.name === "state" ? submitter.value : form.querySelector("input[name=state]")?.value;
  if (!state) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  queue.add("plate", form, submitter, { state });
  showQueued();
}, true);

document.addEventListener("kith:swapped", showQueued);

for (const entry of queue.entries("plate")) waiting.add(entry.id);
showQueued();
queue.start();
queue.registerWorker();

// Kith's progressive enhancement. Every page works without this file: forms
// post and redirect, links navigate. With it, marked forms submit without a
// reload and live fragments refresh themselves.
//
// One protocol with the server: every request a page script makes instead
// of the browser (an enhanced form post, a fragment fetch, a tally's
// increment) carries `X-Kith-Enhanced: 1`. A handler that can answer such a
// request with just the changed fragment may do so (`RequestContext.isEnhanced`);
// any other answers as it would the browser, so the header never changes
// what a request does, only how much comes back. A live refresh says
// `X-Kith-Enhanced: fragment`: it swaps in one region, never `#flashes`, so
// the server leaves the session's messages for the page that will show them.
document.documentElement.classList.add("js");

// Celebrations are extra: loaded on the side, so that if they fail to load,
// forms and live updates still work.
let motion = { scan() {}, wireClickDemos() {} };
import("./motion.js").then(
  (module) => {
    motion = module;
    motion.scan(document);
    motion.wireClickDemos(document);
  },
  () => {},
);

// ---------------------------------------------------------------------------
// What the person is in the middle of
//
// A refresh must never take away what someone is doing: a value they typed
// or picked (it differs from the default the server rendered), a <details>
// they opened or closed, where focus and the text selection are.

const FIELDS = "input, textarea, select";

function isField(node) {
  return node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement || node instanceof HTMLSelectElement;
}

// The option a single-choice select shows when nobody has touched it.
function defaultIndex(select) {
  let index = -1;
  [...select.options].forEach((option, i) => { if (option.defaultSelected) index = i; });
  if (index < 0 && !select.multiple && select.size <= 1) index = [...select.options].findIndex((option) => !option.disabled);
  return index;
}

function isChanged(field) {
  if (field instanceof HTMLSelectElement) {
    if (field.multiple) return [...field.options].some((option) => option.selected !== option.defaultSelected);
    return field.selectedIndex !== defaultIndex(field);
  }
  if (field instanceof HTMLTextAreaElement) return field.value !== field.defaultValue;
  if (!(field instanceof HTMLInputElement)) return false;
  switch (field.type) {
    case "checkbox": case "radio": return field.checked !== field.defaultChecked;
    case "file": return Boolean(field.files && field.files.length);
    case "hidden": case "submit": case "button": case "reset": case "image": return false;
    default: return field.value !== field.defaultValue;
  }
}

// Fields under root holding input not yet saved. A form whose own answer is
// arriving (`except`) has been saved: its fields take the server's values.
function unsavedFields(root, except = null) {
  return [...root.querySelectorAll(FIELDS)].filter((field) => isChanged(field) && !(except && except.contains(field)));
}

// What the server last rendered for each <details>, learnt the first time
// the person toggles it, so a refresh can tell their choice from the page's.
const renderedOpen = new WeakMap();
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (details instanceof HTMLDetailsElement && !renderedOpen.has(details)) renderedOpen.set(details, !details.open);
}, true);

function toggledByPerson(details) {
  return renderedOpen.has(details) && renderedOpen.get(details) !== details.open;
}

// ---------------------------------------------------------------------------
// Morphing
//
// A fresh copy of an element from the server is morphed into the one on the
// page instead of replacing it, so the nodes the person is using stay the
// same nodes: focus, selection, typed values and open <details> survive.
// Children are paired by id (or by the ids inside them), then by kind —
// tag, name, type, a form's action — in order; the rest are added or removed.
//
// Scripts mark what they have set up with data- attributes the server never
// sends (a carousel, a player, a celebration). Such an element is replaced
// whole, as before, so its script sets it up again on `kith:swapped` —
// unless the person's work is inside it; then it is morphed and keeps its
// marks, and the script's set-up stays with it.

// Every element with an id inside root (root included), mapped to the ids
// found in its subtree.
function idsWithin(root) {
  const sets = new Map();
  const found = [...root.querySelectorAll("[id]")];
  if (root.id) found.push(root);
  for (const element of found) {
    for (let node = element; node; node = node === root ? null : node.parentElement) {
      if (!sets.has(node)) sets.set(node, new Set());
      sets.get(node).add(element.id);
    }
  }
  return sets;
}

function shares(a, b) {
  if (!a || !b) return false;
  for (const id of a) if (b.has(id)) return true;
  return false;
}

function kindOf(element) {
  const type = element.getAttribute("type") || "";
  const choice = element.localName === "input" && (type === "radio" || type === "checkbox") ? element.getAttribute("value") || "" : "";
  const action = element.localName === "form" ? element.getAttribute("action") || "" : "";
  return [element.localName, element.getAttribute("name") || "", type, choice, action].join("\u0000");
}

// Pairs the fresh children with the current ones; returns the pairs (old
// is null for a new node) and the current children nobody took.
function pairChildren(current, fresh, context) {
  const olds = [...current.childNodes];
  const freshes = [...fresh.childNodes];
  const partner = freshes.map(() => -1);
  const taken = new Set();
  freshes.forEach((node, f) => {
    const wanted = node.nodeType === Node.ELEMENT_NODE && context.freshIds.get(node);
    if (!wanted) return;
    const i = olds.findIndex((old, i) => !taken.has(i) && old.nodeType === Node.ELEMENT_NODE && old.localName === node.localName &&
      (node.id ? old.id === node.id : !old.id && shares(context.oldIds.get(old), wanted)));
    if (i >= 0) { partner[f] = i; taken.add(i); }
  });
  let previous = -1;
  freshes.forEach((node, f) => {
    if (partner[f] >= 0) { previous = partner[f]; return; }
    if (node.nodeType === Node.ELEMENT_NODE && node.id) return;
    const kind = node.nodeType === Node.ELEMENT_NODE ? kindOf(node) : null;
    for (let i = previous + 1; i < olds.length; i++) {
      if (taken.has(i)) continue;
      const old = olds[i];
      if (kind === null) {
        if (old.nodeType === node.nodeType) partner[f] = i;
        break;
      }
      if (old.nodeType === Node.ELEMENT_NODE && !old.id && kindOf(old) === kind) { partner[f] = i; break; }
    }
    if (partner[f] >= 0) { taken.add(partner[f]); previous = partner[f]; }
  });
  return {
    pairs: freshes.map((node, f) => [node, partner[f] >= 0 ? olds[partner[f]] : null]),
    leftovers: olds.filter((_, i) => !taken.has(i)),
  };
}

function holds(node, nodes) {
  return nodes.some((inner) => node === inner || node.contains(inner));
}

function markedByScript(current, fresh) {
  for (const { name } of current.attributes) if (name.startsWith("data-") && !fresh.hasAttribute(name)) return true;
  return false;
}

function replacedWhole(current, fresh, context) {
  return current !== context.root && markedByScript(current, fresh) && !holds(current, context.keep);
}

// Whether morphing fresh into current would drop a field with unsaved input.
function losesInput(current, fresh, context) {
  if (isField(current) || replacedWhole(current, fresh, context)) return false;
  const { pairs, leftovers } = pairChildren(current, fresh, context);
  if (leftovers.some((node) => holds(node, context.unsaved))) return true;
  return pairs.some(([node, old]) => old && old.nodeType === Node.ELEMENT_NODE && losesInput(old, node, context));
}

function syncAttributes(current, fresh, context) {
  const keepMarks = current !== context.root;
  for (const { name } of [...current.attributes]) {
    if (fresh.hasAttribute(name) || name === "open" || (keepMarks && name.startsWith("data-"))) continue;
    current.removeAttribute(name);
  }
  for (const { name, value } of fresh.attributes) {
    if (name !== "open" && current.getAttribute(name) !== value) current.setAttribute(name, value);
  }
}

function morphChildren(current, fresh, context) {
  const { pairs, leftovers } = pairChildren(current, fresh, context);
  for (const node of leftovers) node.remove();
  pairs.forEach(([node, old], i) => {
    const placed = old || document.importNode(node, true);
    const at = current.childNodes[i] || null;
    if (at !== placed) current.insertBefore(placed, at);
  });
  for (const [node, old] of pairs) if (old) morph(old, node, context);
}

function morph(current, fresh, context) {
  if (current.nodeType !== Node.ELEMENT_NODE) {
    if (current.nodeValue !== fresh.nodeValue) current.nodeValue = fresh.nodeValue;
    return;
  }
  if (replacedWhole(current, fresh, context)) {
    current.replaceWith(document.importNode(fresh, true));
    return;
  }
  const kept = isField(current) && context.unsaved.includes(current);
  const value = current.value;
  const checked = current.checked;
  const picked = current instanceof HTMLSelectElement ? new Set([...current.selectedOptions].map((option) => option.value)) : null;
  const wasOpen = current instanceof HTMLDetailsElement ? current.open : false;

  syncAttributes(current, fresh, context);
  if (current instanceof HTMLTextAreaElement) {
    if (current.defaultValue !== fresh.defaultValue) current.defaultValue = fresh.defaultValue;
  } else if (!(current instanceof HTMLInputElement)) {
    morphChildren(current, fresh, context);
  }

  if (current instanceof HTMLInputElement) {
    if (current.type === "checkbox" || current.type === "radio") {
      const want = kept ? checked : current.defaultChecked;
      if (current.checked !== want) current.checked = want;
    } else if (current.type === "file") {
      if (!kept && current.value) current.value = "";
    } else {
      const want = kept ? value : current.defaultValue;
      if (current.value !== want) current.value = want;
    }
  } else if (current instanceof HTMLTextAreaElement) {
    const want = kept ? value : current.defaultValue;
    if (current.value !== want) current.value = want;
  } else if (current instanceof HTMLSelectElement) {
    if (kept) for (const option of current.options) option.selected = picked.has(option.value);
    else if (current.multiple) for (const option of current.options) option.selected = option.defaultSelected;
    else current.selectedIndex = defaultIndex(current);
  } else if (current instanceof HTMLDetailsElement) {
    const serverOpen = fresh.hasAttribute("open");
    // Open while the person works inside it, or as they left it.
    const open = holds(current, context.keep) ? wasOpen : serverOpen;
    renderedOpen.set(current, serverOpen);
    if (current.open !== open) current.open = open;
  }
}

// Morphs fresh into element, keeping the person's work and place. Returns
// false, changing nothing, when that would drop unsaved input (unless
// forced: the person asked for the update).
function applyFresh(element, fresh, { saved = null, force = false } = {}) {
  if (fresh.localName !== element.localName) {
    // Not the same kind of thing any more: nothing to morph into.
    if (!force && unsavedFields(element, saved).length) return false;
    const replacement = document.importNode(fresh, true);
    dropHeld(element);
    element.replaceWith(replacement);
    swapped(replacement);
    return true;
  }
  const active = element.contains(document.activeElement) ? document.activeElement : null;
  const unsaved = unsavedFields(element, saved);
  const toggled = [...element.querySelectorAll("details")].filter(toggledByPerson);
  const context = {
    root: element, unsaved, keep: [...unsaved, ...toggled, ...(active ? [active] : [])],
    oldIds: idsWithin(element), freshIds: idsWithin(fresh),
  };
  if (!force && losesInput(element, fresh, context)) return false;

  let selection = null;
  try {
    if (active && typeof active.selectionStart === "number") {
      selection = [active.selectionStart, active.selectionEnd, active.selectionDirection];
    }
  } catch { /* inputs without a selection (number, email) */ }
  const anchor = active || element;
  const top = anchor.getBoundingClientRect().top;

  morph(element, fresh, context);

  if (active && active.isConnected && document.activeElement !== active) active.focus({ preventScroll: true });
  else if (active && !active.isConnected && active.id) document.getElementById(active.id)?.focus({ preventScroll: true });
  if (selection && active.isConnected) {
    try { active.setSelectionRange(...selection); } catch { /* the value changed shape */ }
  }
  // The thing the person is looking at stays where it was on the screen.
  if (anchor.isConnected) {
    const moved = anchor.getBoundingClientRect().top - top;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
  }
  for (const form of element.querySelectorAll("form")) if (busy.has(form)) showBusy(form);
  dropHeld(element);
  swapped(element);
  return true;
}

// Celebrations and feature scripts set up what just arrived.
function swapped(element) {
  motion.scan(element);
  motion.wireClickDemos(element);
  element.dispatchEvent(new CustomEvent("kith:swapped", { bubbles: true }));
}

// ---------------------------------------------------------------------------
// Held updates
//
// When an update cannot arrive without dropping something typed (a field
// the new version no longer has), it waits behind a small notice; the
// person applies it when they are ready, and a later update that fits
// applies itself.

const held = new Map();

function dropHeld(element) {
  const entry = held.get(element);
  if (!entry) return;
  held.delete(element);
  entry.notice.remove();
}

// A new element with a class, its text and attributes.
function make(tag, className, text = "", attributes = {}) {
  const node = document.createElement(tag);
  node.className = className;
  if (text) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

// A short line that says something and offers one thing to do about it.
function lineWithButton(className, role, message, label, buttonClass, action) {
  const line = make("p", className, "", { role });
  const button = make("button", buttonClass, label, { type: "button" });
  button.addEventListener("click", action);
  line.append(message, button);
  return line;
}

function hold(element, fresh) {
  const entry = held.get(element);
  if (entry) { entry.fresh = fresh; return; }
  const notice = lineWithButton("live-held", "status", "Updated — ", "show", "link-button", () => {
    const latest = held.get(element);
    if (!latest) return;
    dropHeld(element);
    if (element.isConnected) applyFresh(element, latest.fresh, { force: true });
  });
  held.set(element, { fresh, notice });
  element.before(notice);
}

// ---------------------------------------------------------------------------
// Fragments
//
// A fragment is an element with an id and `data-fragment="/url"`: the URL
// renders exactly that element, for the viewer asking. One refresh per
// element at a time; an invalidation arriving meanwhile fetches once more
// afterwards, so an older answer never lands on a newer one.

function parse(html) {
  return new DOMParser().parseFromString(html, "text/html");
}

const refreshing = new Map();
// Fragments whose refresh found no network. An open stream can still
// deliver its event while other requests fail (a tunnel, a captive
// portal), and it has then moved past that event: nothing would name
// them again, so they are fetched when the browser is back online.
const missed = new Set();
window.addEventListener("online", () => {
  const ids = [...missed].filter((element) => element.isConnected).map((element) => element.id);
  missed.clear();
  refreshNamed(ids);
});

async function refreshFragment(element) {
  const url = element.dataset.fragment;
  if (!url || endedReason) return;
  if (refreshing.has(element)) { refreshing.set(element, true); return; }
  refreshing.set(element, false);
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { "X-Kith-Enhanced": "fragment" } });
    const reason = endingOf(response);
    if (reason) { ending(reason, element); return; }
    if (response.status === 404 || response.status === 410) {
      element.remove(); // an ordinary missing thing inside what is still ours
      return;
    }
    if (!response.ok) return;
    const doc = parse(await response.text());
    const fresh = doc.getElementById(element.id) || doc.body.firstElementChild;
    if (fresh && element.isConnected && !endedReason && !applyFresh(element, fresh)) hold(element, fresh);
  } catch {
    missed.add(element);
  } finally {
    const again = refreshing.get(element);
    refreshing.delete(element);
    if (again && element.isConnected) refreshFragment(element);
  }
}

// One event often names several fragments of one page. Where the page
// marks an ancestor `data-fragment-batch="/url"`, they are asked for in one
// request (`/url?fragments=a,b`), so each viewer pays for the page's scope
// and model once; the answer holds each fragment by id. Anything the answer
// lacks, or a refusal other than an ending, falls back to one request each.
async function refreshBatch(url, elements) {
  if (endedReason) return;
  const asked = elements.filter((element) => {
    if (!refreshing.has(element)) return true;
    refreshing.set(element, true); // already on its way: once more afterwards
    return false;
  });
  if (asked.length === 0) return;
  for (const element of asked) refreshing.set(element, false);
  let missing = [];
  try {
    const query = asked.map((element) => encodeURIComponent(element.id)).join(",");
    const response = await fetch(`${url}?fragments=${query}`, { credentials: "same-origin", headers: { "X-Kith-Enhanced": "fragment" } });
    const reason = endingOf(response);
    if (reason) { ending(reason, asked[0]); return; }
    if (!response.ok) { missing = asked; return; }
    const doc = parse(await response.text());
    for (const element of asked) {
      const fresh = doc.getElementById(element.id);
      if (!fresh) { missing.push(element); continue; }
      if (element.isConnected && !endedReason && !applyFresh(element, fresh)) hold(element, fresh);
    }
  } catch {
    for (const element of asked) missed.add(element);
  } finally {
    for (const element of asked) {
      const again = refreshing.get(element);
      refreshing.delete(element);
      if ((again || missing.includes(element)) && element.isConnected) refreshFragment(element);
    }
  }
}

// The elements an event named, each refreshed once: together where their
// page allows it, alone otherwise.
function refreshNamed(ids) {
  const batches = new Map();
  for (const id of ids) {
    const element = document.getElementById(id);
    if (!element || !element.dataset.fragment) continue;
    const url = element.closest("[data-fragment-batch]")?.dataset.fragmentBatch;
    if (!url) { refreshFragment(element); continue; }
    if (!batches.has(url)) batches.set(url, []);
    if (!batches.get(url).includes(element)) batches.get(url).push(element);
  }
  for (const [url, elements] of batches) {
    if (elements.length === 1) refreshFragment(elements[0]);
    else refreshBatch(url, elements);
  }
}

// ---------------------------------------------------------------------------
// Endings
//
// When what a page shows has ended (see Core/Endings.swift), the server says
// why in one word: `X-Kith-Ending: signed-out` with a 401, `gone` with a 404,
// or a stream's last event `revoked`. Every script turns that word into one
// document event, `kith:ended` with `detail.reason`, and this file shows it.

let endedReason = null;

function endingOf(response) {
  const reason = response.headers.get("X-Kith-Ending");
  if (response.status === 401 && reason === "signed-out") return reason;
  if (response.status === 404 && reason === "gone") return reason;
  return null;
}

// A page about one scope (an occasion, a game, a tally) carries its own
// sentence for "gone" on its root; a page listing many has none.
function scopeRoot() {
  return document.querySelector("[data-ending-gone]");
}

// Reports an ending found by this file; `element` is what was being fetched.
function ending(reason, element = null) {
  document.dispatchEvent(new CustomEvent("kith:ended", { detail: { reason, element } }));
}

// On a page listing many things, one of them ending is not the page ending:
// it leaves the list with a short note among the page's messages, and the
// rest is refetched so it shows the truth.
function dropFromList(element) {
  if (element instanceof Element && element !== document.querySelector("main") && element.isConnected) element.remove();
  const flashes = document.getElementById("flashes");
  const note = "Something here is no longer shared with you, so it was taken off this page.";
  if (flashes && ![...flashes.children].some((flash) => flash.textContent === note)) {
    flashes.append(make("p", "flash flash--notice", note, { role: "status" }));
  }
  for (const fragment of document.querySelectorAll("[data-fragment]")) {
    if (!fragment.parentElement?.closest("[data-fragment]")) refreshFragment(fragment);
  }
}

// The page keeps what it showed, so nothing vanishes under the person, but
// nothing on it can act any more: its forms are disabled (and their submits
// refused below) and the stream is closed. One banner at the top of <main>
// says why and where to go.
function endPage(reason) {
  const main = document.querySelector("main");
  if (!main || endedReason === "signed-out" || endedReason === reason) return;
  endedReason = reason;
  closeLive();
  for (const notice of held.values()) notice.notice.remove();
  held.clear();
  main.classList.add("is-ended");
  for (const form of main.querySelectorAll("form")) {
    if (form.method !== "post") continue;
    form.setAttribute("aria-disabled", "true");
    // Typed text stays selectable, so it can be copied before signing in again.
    for (const control of form.elements) {
      if (control.matches("textarea, input:not([type=hidden], [type=submit], [type=button], [type=reset], [type=image], [type=checkbox], [type=radio], [type=file])")) control.readOnly = true;
      else control.disabled = true;
    }
  }
  // Links drawn as buttons are actions ("Spotted a plate"); they would lead
  // to a 404 now. Plain links stay: they are part of what the page said.
  for (const action of main.querySelectorAll("a.button")) action.hidden = true;
  for (const line of main.querySelectorAll(".not-saved")) line.remove();

  main.querySelector(".ending")?.remove();
  const banner = make("section", "ending", "", { role: "alert", "aria-labelledby": "ending-title" });
  const title = make("h2", "ending__title", "", { id: "ending-title", tabindex: "-1" });
  const note = make("p", "ending__note");
  const actions = make("p", "ending__actions");
  const link = (text, href, primary) => make("a", primary ? "button button--small" : "ending__home", text, { href });
  if (reason === "signed-out") {
    title.textContent = "You were signed out";
    note.textContent = "Nothing more was saved here. Sign in again to carry on where you were.";
    if (main.dataset.signIn) {
      const back = `${main.dataset.signIn}?next=${encodeURIComponent(location.pathname + location.search)}`;
      actions.append(link("Sign in again", back, true));
    }
  } else {
    title.textContent = scopeRoot()?.dataset.endingGone || "This page is no longer available to you";
    note.textContent = "What you see is how it was; it no longer changes, and nothing here can be done any more.";
  }
  if (main.dataset.home) actions.append(link("Go to your home page", main.dataset.home, reason !== "signed-out"));
  banner.append(title, note, actions);
  main.prepend(banner);
  title.focus();
}

document.addEventListener("kith:ended", (event) => {
  const reason = event.detail && event.detail.reason === "signed-out" ? "signed-out" : "gone";
  const element = event.detail && event.detail.element;
  if (reason === "gone" && !scopeRoot()) {
    dropFromList(element);
    return;
  }
  if (reason === "gone" && element instanceof Element && !element.closest("[data-ending-gone]") && !element.querySelector("[data-ending-gone]")) {
    dropFromList(element); // a piece of the page outside the scope it is about
    return;
  }
  endPage(reason);
});

// ---------------------------------------------------------------------------
// Forms: one submission at a time
//
// A form being submitted is busy (`aria-busy`, its button marked and
// `aria-disabled`; a disabled button would drop keyboard focus) and a second
// submit of it is ignored, so a double click or a second Enter sends once.
// Forms whose scripts queue them offline (`data-offline-queue`) are those
// scripts' own; forms another script takes over (it cancels the submit) are
// left to it.

const busy = new WeakMap();
const queued = new WeakMap();

function showBusy(form) {
  const state = busy.get(form);
  form.setAttribute("aria-busy", "true");
  if (state.button && state.button.isConnected) {
    state.button.setAttribute("aria-disabled", "true");
    state.button.classList.add("is-busy");
  }
}

function markBusy(form, submitter) {
  const button = submitter && submitter.form === form ? submitter : form.querySelector("button[type=submit], button:not([type]), input[type=submit]");
  busy.set(form, { button, print: null });
  showBusy(form);
}

function clearBusy(form) {
  const state = busy.get(form);
  busy.delete(form);
  form.removeAttribute("aria-busy");
  if (state && state.button) {
    state.button.removeAttribute("aria-disabled");
    state.button.classList.remove("is-busy");
  }
  return state;
}

function fingerprint(body) {
  return JSON.stringify([...body].filter(([name]) => name !== "_csrf").map(([name, value]) =>
    [name, value instanceof File ? `${value.name}:${value.size}` : value]));
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.hasAttribute("data-offline-queue")) return;
  const ended = endedReason && form.closest("main");
  const state = busy.get(form);
  if (!ended && !state) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  // A different submission of a busy enhanced form (another state tapped on
  // the map) is not a repeat: it goes next.
  if (ended || !form.hasAttribute("data-enhance")) return;
  const body = new FormData(form, event.submitter && event.submitter.form === form ? event.submitter : undefined);
  const print = fingerprint(body);
  const queue = queued.get(form) || [];
  if (print !== state.print && !queue.some((next) => next.print === print)) queue.push({ body, print, submitter: event.submitter });
  queued.set(form, queue);
}, true);

// Last to hear a submit: if nobody took it over, the browser is about to
// post it and leave; until then it is busy. Coming back (the back button,
// a download instead of a page) frees it.
window.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || event.defaultPrevented || form.hasAttribute("data-offline-queue")) return;
  if (form.method !== "post" || (form.target && form.target !== "_self")) return;
  if (navigator.onLine === false) {
    // Posted now, the browser would leave for its own error page and what
    // was typed would be lost: stay, and say so.
    event.preventDefault();
    const submitter = event.submitter && event.submitter.form === form ? event.submitter : undefined;
    showNotSaved(form, null, submitter, "you're offline.", () => form.requestSubmit(submitter));
    return;
  }
  markBusy(form, event.submitter);
  setTimeout(() => { if (busy.has(form) && !busy.get(form).print) clearBusy(form); }, 15000);
});
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  for (const form of document.forms) if (busy.has(form)) clearBusy(form);
});

// ---------------------------------------------------------------------------
// Enhanced forms
//
// `<form data-enhance data-target="some-id">`: submitted with fetch; the
// browser follows the server's redirect, and the element with the target id
// in the page that comes back is morphed into ours (the submitted form takes
// the server's fresh values; other forms keep their input). A form
// re-rendered with errors (4xx with a page) arrives the same way, so errors
// appear next to fields. If the request never reaches the server (offline,
// timed out) the form stays as it is, typed input and all, with a line
// saying it was not saved and a button to try again.

const SUBMIT_TIMEOUT_MS = 30000;
const notSaved = new WeakMap();

function clearNotSaved(form) {
  notSaved.get(form)?.remove();
  notSaved.delete(form);
}

function showNotSaved(form, target, submitter, detail, retry) {
  clearNotSaved(form);
  const message = `Not saved — ${detail ? `${detail} ` : ""}`;
  const line = lineWithButton("not-saved", "alert", message, "Retry", "button button--small button--secondary", () => {
    clearNotSaved(form);
    retry();
  });
  notSaved.set(form, line);
  const button = submitter && submitter.form === form && submitter.isConnected ? submitter : form.querySelector("button[type=submit], button:not([type]), input[type=submit]");
  if (button && !form.hidden) button.after(line);
  else if (target && target.isConnected) target.before(line);
  else form.before(line);
}

// Posts body for form and shows the answer; says how it went.
async function postEnhanced(form, body) {
  const targetId = form.dataset.target || form.id;
  const target = targetId && document.getElementById(targetId);
  if (!target) return { outcome: "unenhanced" };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), SUBMIT_TIMEOUT_MS);
  let response;
  let text;
  try {
    response = await fetch(form.action, {
      method: (form.method || "post").toUpperCase(), body, credentials: "same-origin",
      headers: { "X-Kith-Enhanced": "1" }, signal: controller.signal,
    });
    text = await response.text();
  } catch {
    return { outcome: "unsent", target };
  } finally {
    clearTimeout(timer);
  }
  const reason = endingOf(response);
  if (reason) { ending(reason, target); return { outcome: "ended" }; }
  const type = response.headers.get("Content-Type") || "";
  if (!type.startsWith("text/html")) {
    if (response.ok) { window.location.assign(response.url); return { outcome: "left" }; }
    return { outcome: "refused", target, detail: text.trim().slice(0, 200) };
  }
  const doc = parse(text);
  const fresh = doc.getElementById(targetId);
  if (!fresh) {
    // The answer is another page entirely: show it as the browser would.
    window.location.assign(response.url);
    return { outcome: "left" };
  }
  const current = document.getElementById(targetId) || target;
  applyFresh(current, fresh, { saved: form, force: true });
  const flashes = doc.getElementById("flashes");
  const ours = document.getElementById("flashes");
  if (flashes && ours) ours.replaceWith(document.importNode(flashes, true));
  return { outcome: "shown" };
}

async function sendEnhanced(form, body, submitter) {
  markBusy(form, submitter);
  const print = fingerprint(body);
  busy.get(form).print = print;
  clearNotSaved(form);
  let result;
  try {
    result = await postEnhanced(form, body);
  } catch {
    result = { outcome: "shown" }; // the answer arrived; showing it failed, and the page still stands
  }
  clearBusy(form);
  // What is in the form now is what the person means to save; a hidden
  // form (the map's) keeps what was tapped.
  const retry = () => sendEnhanced(
    form, form.hidden || !form.isConnected ? body : new FormData(form, submitter && submitter.form === form ? submitter : undefined), submitter);
  if (result.outcome === "unenhanced") form.submit();
  else if (result.outcome === "unsent") showNotSaved(form, result.target, submitter, "", retry);
  else if (result.outcome === "refused") showNotSaved(form, result.target, submitter, result.detail, retry);
  const next = queued.get(form)?.shift();
  if (!next) return;
  // What waited behind a failed submission would fail the same way.
  if (result.outcome === "shown" && form.isConnected && !endedReason) sendEnhanced(form, next.body, next.submitter);
  else queued.delete(form);
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-enhance") || form.hasAttribute("data-offline-queue")) return;
  if (!window.fetch || !window.DOMParser || !window.AbortController) return;
  event.preventDefault();
  const submitter = event.submitter && event.submitter.form === form ? event.submitter : undefined;
  sendEnhanced(form, new FormData(form, submitter), submitter);
});

// Web Push settings, only where the page has the switch.
if (document.querySelector("[data-push-control]")) import("./push.js").catch(() => {});

// ---------------------------------------------------------------------------
// Browser notifications while Kith is open
//
// With permission granted but no push subscription on this device, a new
// inbox entry arriving over the live stream is shown as a notification.

async function notifyFromInbox() {
  // The nav's inbox link names the inbox and its list fragment.
  const inbox = document.querySelector("a[data-inbox-list]");
  if (!inbox || !("Notification" in window) || Notification.permission !== "granted") return;
  if ("serviceWorker" in navigator) {
    const registration = await navigator.serviceWorker.getRegistration();
    if (registration && (await registration.pushManager.getSubscription())) return; // push will show it
  }
  const response = await fetch(inbox.dataset.inboxList, { credentials: "same-origin" });
  if (!response.ok) return;
  const newest = parse(await response.text()).querySelector("[data-unread]");
  if (!newest || sessionStorage.getItem("kith-notified") === newest.dataset.unread) return;
  sessionStorage.setItem("kith-notified", newest.dataset.unread);
  const notice = new Notification(newest.dataset.title, { body: newest.dataset.body, icon: "/static/icons/kith-192.png" });
  notice.addEventListener("click", () => { window.focus(); window.location.assign(inbox.href); });
}

document.addEventListener("kith:live", (event) => {
  if (String(event.detail.topic).startsWith("inbox:") && document.visibilityState === "visible") {
    notifyFromInbox().catch(() => {});
  }
});

// ---------------------------------------------------------------------------
// Copy buttons
//
// `<button data-copy="text">` copies its text; without script (or without a
// secure context) the readonly field beside it can be selected by hand.

document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element && event.target.closest("[data-copy]");
  if (!button || !navigator.clipboard) return;
  try {
    await navigator.clipboard.writeText(button.dataset.copy);
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = label; }, 1500);
  } catch {
    // Permission refused: the field is still there to select.
  }
});

// ---------------------------------------------------------------------------
// Time zones
//
// A fresh form that asks for a time zone starts at the browser's own, when
// the server knows it; the server's default stays for everyone else.

for (const wrapper of document.querySelectorAll('[data-time-zone="browser"]')) {
  const select = wrapper.querySelector("select");
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (select && zone && [...select.options].some((option) => option.value === zone)) select.value = zone;
}

// ---------------------------------------------------------------------------
// Live updates
//
// One EventSource per tab for every topic the page shows, opened from the
// cursor the page was rendered with, closed while the tab is hidden and
// reopened, from the last event seen, when it is visible again.

const liveMeta = document.querySelector('meta[name="kith-live"]');
const streamMeta = document.querySelector('meta[name="kith-live-stream"]');
let source = null;
let lastEventId = liveMeta ? liveMeta.dataset.cursor : "";

function openLive() {
  if (!liveMeta || !streamMeta || source || endedReason || !window.EventSource) return;
  const url = `${streamMeta.content}?topics=${encodeURIComponent(liveMeta.content)}&cursor=${encodeURIComponent(lastEventId || "")}`;
  source = new EventSource(url);
  source.addEventListener("invalidate", (event) => {
    lastEventId = event.lastEventId || lastEventId;
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    refreshNamed(message.fragments || []);
    document.dispatchEvent(new CustomEvent("kith:live", { detail: message }));
  });
  source.addEventListener("reload", () => {
    closeLive();
    window.location.reload();
  });
  source.addEventListener("evicted", () => closeLive());
  // What the page shows has ended for this viewer: say why, in the page.
  // A page listing many things reloads instead (its list simply loses
  // one), unless that would throw away something typed.
  source.addEventListener("revoked", (event) => {
    closeLive();
    const reason = event.data === "signed-out" ? "signed-out" : "gone";
    if (reason === "gone" && !scopeRoot() && unsavedFields(document).length === 0) window.location.reload();
    else ending(reason);
  });
}

function closeLive() {
  if (source) source.close();
  source = null;
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") closeLive();
  else openLive();
});
window.addEventListener("pagehide", closeLive);

if (document.visibilityState !== "hidden") openLive();
import("./confirm.js").catch(() => {});

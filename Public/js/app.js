// Kith's progressive enhancement. Every page works without this file: forms
// post and redirect, links navigate. With it, marked forms submit without a
// reload and live fragments refresh themselves.
//
// One protocol with the server: every request a page script makes instead
// of the browser (an enhanced form post, a fragment fetch, a tally's
// increment) carries `X-Kith-Enhanced: 1`. A handler that can answer such a
// request with just the changed fragment may do so (`RequestContext.isEnhanced`);
// any other answers as it would the browser, so the header never changes
// what a request does, only how much comes back.
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
// Fragments
//
// A fragment is an element with an id and `data-fragment="/url"`: the URL
// renders exactly that element, for the viewer asking. Swapping keeps focus
// where it was when the focused element survives the swap.

function swap(current, replacement) {
  const focusedId = document.activeElement && document.activeElement.id;
  current.replaceWith(replacement);
  if (focusedId) {
    const again = document.getElementById(focusedId);
    if (again && again !== document.activeElement) again.focus({ preventScroll: true });
  }
  motion.scan(replacement);
  motion.wireClickDemos(replacement);
  replacement.dispatchEvent(new CustomEvent("kith:swapped", { bubbles: true }));
}

function parse(html) {
  return new DOMParser().parseFromString(html, "text/html");
}

// Someone typing inside a fragment keeps what they typed: the refresh waits
// until focus leaves the fragment.
function isTypingIn(element) {
  const active = document.activeElement;
  return active && element.contains(active) && active.matches("input:not([type=hidden]), textarea, select");
}

async function refreshFragment(element) {
  const url = element.dataset.fragment;
  if (!url) return;
  if (isTypingIn(element)) {
    if (!element.dataset.refreshPending) {
      element.dataset.refreshPending = "1";
      element.addEventListener("focusout", function later() {
        setTimeout(() => {
          if (isTypingIn(element)) return;
          element.removeEventListener("focusout", later);
          delete element.dataset.refreshPending;
          refreshFragment(element);
        }, 0);
      });
    }
    return;
  }
  const response = await fetch(url, {
    credentials: "same-origin",
    headers: { "X-Kith-Enhanced": "1" },
  });
  if (response.status === 404 || response.status === 410) {
    element.remove(); // it is gone, or no longer ours to see
    return;
  }
  if (!response.ok) return;
  const doc = parse(await response.text());
  const fresh = doc.getElementById(element.id) || doc.body.firstElementChild;
  if (fresh) swap(element, document.importNode(fresh, true));
}

// ---------------------------------------------------------------------------
// Enhanced forms
//
// `<form data-enhance data-target="some-id">`: submitted with fetch; the
// browser follows the server's redirect, and the element with the target id
// in the page that comes back replaces ours. A form re-rendered with errors
// (4xx with a page) is swapped the same way, so errors appear next to fields.

async function submitEnhanced(form, submitter) {
  const targetId = form.dataset.target || form.id;
  const target = targetId && document.getElementById(targetId);
  if (!target) return false;
  const body = new FormData(form, submitter);
  form.setAttribute("aria-busy", "true");
  try {
    const response = await fetch(form.action, {
      method: (form.method || "post").toUpperCase(),
      body,
      credentials: "same-origin",
      headers: { "X-Kith-Enhanced": "1" },
    });
    const type = response.headers.get("Content-Type") || "";
    if (!type.startsWith("text/html")) return false;
    const doc = parse(await response.text());
    const fresh = doc.getElementById(targetId);
    if (!fresh) {
      // The answer is another page entirely: show it as the browser would.
      window.location.assign(response.url);
      return true;
    }
    swap(target, document.importNode(fresh, true));
    const flashes = doc.getElementById("flashes");
    const ours = document.getElementById("flashes");
    if (flashes && ours) ours.replaceWith(document.importNode(flashes, true));
    return true;
  } finally {
    form.removeAttribute("aria-busy");
  }
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-enhance")) return;
  if (!window.fetch || !window.DOMParser) return;
  event.preventDefault();
  submitEnhanced(form, event.submitter).then(
    (handled) => { if (!handled) form.submit(); },
    () => form.submit(), // offline or a network error: let the browser try and say so
  );
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
  if (!liveMeta || !streamMeta || source || !window.EventSource) return;
  const url = `${streamMeta.content}?topics=${encodeURIComponent(liveMeta.content)}&cursor=${encodeURIComponent(lastEventId || "")}`;
  source = new EventSource(url);
  source.addEventListener("invalidate", (event) => {
    lastEventId = event.lastEventId || lastEventId;
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    for (const id of message.fragments || []) {
      const element = document.getElementById(id);
      if (element) refreshFragment(element);
    }
    document.dispatchEvent(new CustomEvent("kith:live", { detail: message }));
  });
  source.addEventListener("reload", () => {
    closeLive();
    window.location.reload();
  });
  source.addEventListener("evicted", () => closeLive());
  // Removed from what the page shows: reload, and the server says why.
  source.addEventListener("revoked", () => {
    closeLive();
    window.location.reload();
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

// Kith's service worker: shows Web Push messages while Kith is closed and
// opens the page a notification points to when it is tapped, and keeps the
// last copy of the pages whose taps can wait for the network (the tally
// list, a tally, a plate board and its list) so that a reload without
// network still shows them.
// Served at /sw.js (scope: the whole site). Messages are JSON:
// {"title": "...", "body": "...", "url": "/path"}.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = { body: event.data ? event.data.text() : "" };
  }
  const title = typeof message.title === "string" && message.title ? message.title : "Kith";
  const url = sameOriginURL(message.url);
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof message.body === "string" ? message.body : "",
      data: { url },
      icon: "/static/icons/kith-192.png",
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = sameOriginURL(event.notification.data && event.notification.data.url);
  event.waitUntil(openOrFocus(url));
});

// Only Kith's own pages: a message must not turn a tap into a trip elsewhere.
// Anything else opens the front page, which is the scope the settings page
// registered this worker with.
function sameOriginURL(candidate) {
  const home = self.registration.scope;
  try {
    const url = new URL(typeof candidate === "string" ? candidate : home, self.location.origin);
    return url.origin === self.location.origin ? url.href : home;
  } catch (error) {
    return home;
  }
}

async function openOrFocus(url) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  // A tab already on that page wins; otherwise any Kith tab navigates there.
  const exact = windows.find((client) => client.url === url);
  if (exact) return exact.focus();
  const any = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (any && "navigate" in any) {
    const focused = await any.focus();
    return focused.navigate(url);
  }
  return self.clients.openWindow(url);
}

// ---------------------------------------------------------------------------
// Offline copies
//
// Only GET navigations to pages with a queued form (`data-offline-queue`)
// are kept, one copy per address, and only for the session that saw them:
// a page showing another session's form token (someone else signed in, or
// signed out and given a sign-in form) or a kept address answering without
// the queued form (signed out, redirected, gone) drops every copy. So does
// a page script that learns its session ended. Pages are fetched from the
// network first; the copy is served only when that fails, marked as old.
// The content-hashed files under /static/ they need are kept too.

const PAGES = "kith-pages-v1";
const ASSETS = "kith-assets-v1";
const OFFLINE_NOTE =
  '<p class="flash flash--error" role="status" data-offline-copy>Offline — showing what you last saw. ' +
  "Taps are kept on this device and sent when you're back online.</p>";

const ownerKey = () => new URL("kith-offline-owner", self.registration.scope).href;
const pageKey = (address) => {
  const url = new URL(address);
  return url.origin + url.pathname;
};
const tokenIn = (html) => (/name="_csrf" value="([^"]+)"/.exec(html) || [])[1] || "";

// Whose copies these are, kept as a digest of the session's form token
// rather than the token itself.
async function sessionOf(html) {
  const token = tokenIn(html);
  if (!token) return "";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function forgetPages() {
  await caches.delete(PAGES);
}

// Looks at a page the network gave: keeps it, or drops every copy when it
// shows this browser belongs to another session now.
async function remember(requested, response) {
  let cache = await caches.open(PAGES);
  const kept = Boolean(await cache.match(pageKey(requested)));
  const type = response.headers.get("Content-Type") || "";
  // A kept page that now redirects (to sign in) or is no page at all.
  if (response.type === "opaqueredirect" || !type.startsWith("text/html")) {
    if (kept) await forgetPages();
    return;
  }
  const html = await response.text();
  const session = await sessionOf(html);
  const owner = await cache.match(ownerKey()).then((found) => (found ? found.text() : ""));
  if (session && owner && session !== owner) {
    await forgetPages();
    cache = await caches.open(PAGES);
  }
  const keep = response.status === 200 && !response.redirected && session && html.includes("data-offline-queue");
  if (!keep) {
    if (kept) await forgetPages();
    return;
  }
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  await cache.put(ownerKey(), new Response(session));
  await cache.put(pageKey(requested), new Response(html, { status: 200, headers }));
}

async function offlineCopy(address) {
  const cache = await caches.open(PAGES);
  const kept = await cache.match(pageKey(address));
  if (!kept) return null;
  const html = (await kept.text()).replace(/<div class="flashes" id="flashes">/, (opening) => opening + OFFLINE_NOTE);
  return new Response(html, { status: 200, headers: kept.headers });
}

async function navigation(event) {
  const request = event.request;
  try {
    const response = await fetch(request);
    event.waitUntil(remember(request.url, response.clone()).catch(() => {}));
    return response;
  } catch (error) {
    const copy = await offlineCopy(request.url);
    if (copy) return copy;
    throw error;
  }
}

// Hashed names never change content: kept ones are used as they are;
// others are fetched fresh and the kept copy is the fallback.
async function asset(request) {
  const cache = await caches.open(ASSETS);
  const kept = await cache.match(request);
  if (kept && (kept.headers.get("Cache-Control") || "").includes("immutable")) return kept;
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    if (kept) return kept;
    throw error;
  }
}

const isAsset = (url) => url.origin === self.location.origin && url.pathname.startsWith("/static/");

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // Posts pass straight through: only page views are kept.
  if (request.mode === "navigate" && request.method === "GET") event.respondWith(navigation(event));
  else if (request.method === "GET" && isAsset(url)) event.respondWith(asset(request));
});

self.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.type === "kith-forget") {
    event.waitUntil(forgetPages());
  } else if (message.type === "kith-keep" && typeof message.url === "string") {
    // A page this worker did not serve (the first visit): fetch it again to keep it.
    const page = new URL(message.url, self.location.origin);
    if (page.origin !== self.location.origin) return;
    const assets = (Array.isArray(message.assets) ? message.assets : [])
      .map((address) => { try { return new URL(address, self.location.origin); } catch { return null; } })
      .filter((address) => address && isAsset(address));
    event.waitUntil(Promise.all([
      fetch(page.href, { credentials: "same-origin" }).then((response) => remember(page.href, response)).catch(() => {}),
      ...assets.map((address) => asset(new Request(address.href)).catch(() => {})),
    ]));
  }
});

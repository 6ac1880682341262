// Kith's service worker: shows Web Push messages while Kith is closed and
// opens the page a notification points to when it is tapped.
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

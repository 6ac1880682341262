// Web Push on the settings page. The page renders
//   <div data-push-control data-csrf="TOKEN" data-key="…" data-subscribe="…"
//        data-unsubscribe="…" data-worker="…" data-scope="…">
//     <button type="button" data-push-subscribe>…</button>
//     <p data-push-status></p>
//   </div>
// and this module turns the button into an on/off switch for notifications
// on this device. Without a secure context (HTTPS, or localhost) browsers
// offer no push at all, so the control explains that instead.

const supported = window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window;

for (const control of document.querySelectorAll("[data-push-control]")) wire(control);

function wire(control) {
  const button = control.querySelector("[data-push-subscribe]");
  const status = control.querySelector("[data-push-status]");
  const say = (text) => {
    if (status) status.textContent = text;
  };
  if (!button) return;
  if (!supported) {
    button.disabled = true;
    say(
      window.isSecureContext
        ? "This browser cannot show notifications from Kith."
        : "Notifications need Kith to be opened over HTTPS.",
    );
    return;
  }
  const csrf = control.dataset.csrf || "";
  // Every address comes from the page, which builds them from the routes.
  const { key: keyURL, subscribe: subscribeURL, unsubscribe: unsubscribeURL, worker, scope } = control.dataset;
  let busy = false;

  const post = (path, fields) =>
    fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": csrf },
      body: new URLSearchParams(fields),
    }).then((response) => {
      if (!response.ok) throw new Error("The server said " + response.status + ".");
    });

  const registration = () => navigator.serviceWorker.register(worker, { scope });

  async function current() {
    const found = await navigator.serviceWorker.getRegistration(scope);
    return found ? found.pushManager.getSubscription() : null;
  }

  function show(subscribed) {
    button.setAttribute("aria-pressed", subscribed ? "true" : "false");
    button.textContent = subscribed ? "Turn off notifications on this device" : "Turn on notifications on this device";
    if (Notification.permission === "denied") {
      say("Notifications are blocked for Kith in this browser's settings.");
    } else {
      say(subscribed ? "This device gets notifications from Kith." : "This device gets no notifications from Kith.");
    }
  }

  async function turnOn() {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      show(false);
      return;
    }
    const keyResponse = await fetch(keyURL, { credentials: "same-origin" });
    if (!keyResponse.ok) throw new Error("Kith could not share its push key.");
    const key = (await keyResponse.text()).trim();
    const ready = await registration();
    await navigator.serviceWorker.ready;
    const subscription = await ready.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: fromBase64URL(key),
    });
    const json = subscription.toJSON();
    await post(subscribeURL, {
      endpoint: subscription.endpoint,
      p256dh: json.keys.p256dh,
      auth: json.keys.auth,
    });
    show(true);
  }

  async function turnOff() {
    const subscription = await current();
    if (subscription) {
      await post(unsubscribeURL, { endpoint: subscription.endpoint });
      await subscription.unsubscribe();
    }
    show(false);
  }

  button.addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    button.disabled = true;
    try {
      if (await current()) await turnOff();
      else await turnOn();
    } catch (error) {
      say("That didn't work: " + (error && error.message ? error.message : "please try again."));
    } finally {
      busy = false;
      button.disabled = false;
    }
  });

  current().then(
    (subscription) => show(Boolean(subscription)),
    () => show(false),
  );
}

function fromBase64URL(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

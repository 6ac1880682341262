// The countdown before a scheduled reveal. The server writes the time left
// ("3 hours, 20 minutes"); this keeps it ticking in the same words, and once
// the moment comes says so and reloads the page so the unlock buttons appear.

function remaining(seconds) {
  const unit = (count, name) => (count === 1 ? `1 ${name}` : `${count} ${name}s`);
  if (seconds < 60) return "less than a minute";
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return unit(minutes, "minute");
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (days >= 1) return hours % 24 === 0 ? unit(days, "day") : `${unit(days, "day")}, ${unit(hours % 24, "hour")}`;
  return minutes % 60 === 0 ? unit(hours, "hour") : `${unit(hours, "hour")}, ${unit(minutes % 60, "minute")}`;
}

// The server's clock, not the device's, decides: a device set an hour wrong
// still counts down to the server's moment. The offset is taken when a
// rendering (the page, or a live refresh) is first seen.
const offsets = new Map();
let reloading = false;

function tick() {
  for (const element of document.querySelectorAll("[data-countdown]")) {
    const until = Number(element.dataset.countdown);
    const serverNow = Number(element.dataset.now);
    const now = Date.now() / 1000;
    if (!offsets.has(serverNow)) offsets.set(serverNow, Number.isFinite(serverNow) ? now - serverNow : 0);
    const left = Math.round(until - (now - offsets.get(serverNow)));
    if (left <= 0) {
      element.textContent = "moments";
      if (!reloading) {
        reloading = true;
        setTimeout(() => window.location.reload(), 1500);
      }
      continue;
    }
    const text = remaining(left);
    if (element.textContent !== text) element.textContent = text;
  }
}

if (document.querySelector("[data-countdown]")) {
  setInterval(tick, 1000);
}
document.addEventListener("kith:swapped", tick);

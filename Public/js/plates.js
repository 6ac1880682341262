// Plate games, enhanced. Without this file every state on the map is a link
// to a confirm page and the by-name list is a plain form; with it a tap on
// the map spots the state at once, and the list gets a filter box.

// A tap on a state you haven't spotted posts the spot through the page's
// hidden form (app.js submits it without a reload and swaps the board in).
// A state you have spotted still opens its page, where you can undo.
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element && event.target.closest(".usmap--playable a[data-state]");
  const form = document.getElementById("plate-map-form");
  if (!link || !form || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (link.classList.contains("usmap__state--mine")) return;
  event.preventDefault();
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

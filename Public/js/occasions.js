// Occasion pages, enhanced: the final badge's confetti, a calmer timeline
// after live refreshes, and the gift carousel's buttons, keys and swipes.
// Everything here is extra: without it the timeline is a list, the badge
// shows its state, and the carousel is a row that scrolls and snaps.
//
// Live refreshes replace whole regions (see app.js); each new region sends
// a bubbling `kith:swapped` event, and every setup below runs again on it.

// Celebrations are loaded on the side, as app.js does: if they fail, the
// carousel still works.
const motion = import("./motion.js").catch(() => null);

const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

function within(root, selector) {
  const found = [...root.querySelectorAll(selector)];
  if (root instanceof Element && root.matches(selector)) found.unshift(root);
  return found;
}

// sessionStorage can refuse (storage disabled, quota); a tab then remembers
// in memory, which still covers every live refresh of this page view.
const memory = new Map();
const remember = {
  get(key) {
    try { return sessionStorage.getItem(key); } catch { return memory.get(key) ?? null; }
  },
  set(key, value) {
    memory.set(key, value);
    try { sessionStorage.setItem(key, value); } catch { /* memory has it */ }
  },
};

// ---------------------------------------------------------------------------
// The final badge
//
// An open badge carries `data-finale="confetti"`. Confetti fires the first
// time this tab sees the badge open on this page: on arrival if it is
// already open, or the moment a live refresh brings it in open. Later
// refreshes re-render the same open badge; the remembered path keeps them
// quiet. (Not `data-celebrate`: motion.scan would fire that on every swap.)

function celebrateFinale(root) {
  for (const badge of within(root, ".final-badge[data-finale]")) {
    const key = `kith-finale:${location.pathname}`;
    if (remember.get(key)) continue;
    remember.set(key, "celebrated");
    motion.then((module) => module?.celebrate(badge.dataset.finale, badge));
  }
}

// ---------------------------------------------------------------------------
// The timeline
//
// Every entry springs in, one after another, when the page loads. After a
// live refresh only the entries that are new should move: the ones this page
// already showed are marked settled before the browser paints them, and a
// new one arrives at once, with a few sparkles.

const shownEntries = new Map();

function timelineKey(timeline) {
  return [...document.querySelectorAll(".timeline")].indexOf(timeline);
}

function settleTimeline(root, { refreshed }) {
  for (const timeline of within(root, ".timeline")) {
    const key = timelineKey(timeline);
    const before = shownEntries.get(key);
    const entries = [...timeline.querySelectorAll("[data-entry]")];
    let newest = null;
    if (refreshed && before) {
      for (const entry of entries) {
        if (before.has(entry.dataset.entry)) {
          entry.classList.add("is-settled");
        } else {
          entry.classList.add("is-fresh");
          newest = entry;
        }
      }
    }
    shownEntries.set(key, new Set(entries.map((entry) => entry.dataset.entry)));
    const node = newest?.querySelector(".timeline__node");
    if (node) motion.then((module) => module?.sparkle(node));
  }
}

// ---------------------------------------------------------------------------
// The gift carousel
//
// The row scrolls and snaps on its own; this adds previous and next buttons
// that wrap around at both ends, arrow keys (and Home/End) while focus is in
// the carousel, swipes with a mouse or pen (touch already scrolls), and a
// polite "Gift 2 of 5" for screen readers. The card in view is remembered
// for the page, so a live refresh or the redirect after an unlock comes
// back to it instead of the first card.

const SWIPE_DISTANCE = 48;

function setupCarousel(section) {
  if (section.dataset.carouselReady) return;
  section.dataset.carouselReady = "true";
  const track = section.querySelector("[data-carousel-track]");
  const status = section.querySelector("[data-carousel-status]");
  const cards = track ? [...track.children] : [];
  if (cards.length === 0) return;
  const storageKey = `kith-carousel:${location.pathname}`;
  let current = 0;
  let announced = -1;

  const controls = section.querySelector("[data-carousel-controls]");
  if (controls && cards.length > 1) controls.hidden = false;

  // Where a card sits when it is centred, as far as the row can scroll.
  function leftFor(card) {
    const wanted = card.offsetLeft - (track.clientWidth - card.offsetWidth) / 2;
    return Math.max(0, Math.min(wanted, track.scrollWidth - track.clientWidth));
  }

  // The card a scroll the visitor made has come to rest on: the first or
  // the last at either end (where several cards show and none can be
  // centred), otherwise the one nearest the middle.
  function restingCard() {
    const end = track.scrollWidth - track.clientWidth;
    if (track.scrollLeft <= 1) return 0;
    if (track.scrollLeft >= end - 1) return cards.length - 1;
    const distance = (card) => Math.abs(leftFor(card) - track.scrollLeft);
    return cards.reduce((best, card, index) => (distance(card) < distance(cards[best]) ? index : best), 0);
  }

  function settle(index) {
    current = index;
    remember.set(storageKey, cards[index].dataset.gift || "");
    if (index === announced) return;
    announced = index;
    if (status) status.textContent = `Gift ${index + 1} of ${cards.length}`;
  }

  // A scroll this script started lands where it asked; only the visitor's
  // own scrolling should change which card is current.
  let requestedLeft = null;

  function go(index, { focus = false, instant = false } = {}) {
    const count = cards.length;
    const target = ((index % count) + count) % count;
    const card = cards[target];
    requestedLeft = leftFor(card);
    track.scrollTo({ left: requestedLeft, behavior: instant || reducedMotion() ? "auto" : "smooth" });
    if (focus) card.focus({ preventScroll: true });
    settle(target);
  }

  // Come back to the remembered card, silently.
  const saved = remember.get(storageKey);
  const savedIndex = cards.findIndex((card) => card.dataset.gift === saved);
  if (savedIndex > 0) {
    announced = savedIndex;
    go(savedIndex, { instant: true });
  }

  section.addEventListener("click", (event) => {
    const button = event.target instanceof Element && event.target.closest("[data-carousel-step]");
    if (button) go(current + Number(button.dataset.carouselStep));
  });

  section.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target;
    if (target instanceof Element && target.closest("input, textarea, select, [contenteditable]")) return;
    const moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: cards.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    go(moves[event.key], { focus: true });
  });

  // User scrolling (touch, trackpad, the scrollbar) moves `current` too.
  let scrollTimer = 0;
  track.addEventListener("scroll", () => {
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(() => {
      if (requestedLeft !== null && Math.abs(track.scrollLeft - requestedLeft) < 2) return;
      requestedLeft = null;
      settle(restingCard());
    }, 140);
  }, { passive: true });

  // Swipes. Touch scrolls natively (the browser then cancels the pointer);
  // a mouse or pen drag, or a touch swipe at either end where there is
  // nothing left to scroll, steps one card, wrapping around.
  let start = null;
  let swallowClick = false;
  track.addEventListener("pointerdown", (event) => {
    if (!event.isPrimary || event.button !== 0) return;
    if (event.target instanceof Element && event.target.closest("button, input, textarea, select")) return;
    start = { x: event.clientX, y: event.clientY, id: event.pointerId };
  });
  track.addEventListener("pointercancel", () => { start = null; });
  track.addEventListener("pointerup", (event) => {
    if (!start || event.pointerId !== start.id) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    start = null;
    if (Math.abs(dx) < SWIPE_DISTANCE || Math.abs(dx) < Math.abs(dy)) return;
    swallowClick = true;
    go(current + (dx < 0 ? 1 : -1));
  });
  // The click that ends a drag over a link is not a click on the link.
  track.addEventListener("click", (event) => {
    if (!swallowClick) return;
    swallowClick = false;
    event.preventDefault();
    event.stopPropagation();
  }, true);
  track.addEventListener("pointerdown", () => { swallowClick = false; }, true);
}

// ---------------------------------------------------------------------------

function enhance(root, { refreshed }) {
  settleTimeline(root, { refreshed });
  for (const section of within(root, "[data-carousel]")) setupCarousel(section);
  celebrateFinale(root);
}

enhance(document, { refreshed: false });
document.addEventListener("kith:swapped", (event) => {
  if (event.target instanceof Element) enhance(event.target, { refreshed: true });
});

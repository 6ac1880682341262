// Party mode: one slide at a time, on a timer, full screen. Space or →
// moves on, ← goes back, P pauses, Escape leaves. Live refreshes morph new
// slides into the stage (a gift just unlocked joins the loop); the show keeps
// its place by the current slide's id. Without this script every slide is
// listed, one under the other.

const party = document.querySelector("[data-party]");

if (party) {
  const stage = party.querySelector(".party__stage");
  const status = party.querySelector("[data-party-status]");
  const pauseButton = party.querySelector("[data-party-pause]");
  const seconds = Number(party.dataset.party) || 7;
  let currentID = null;
  let paused = false;
  // A video or voice note playing holds the show until it ends.
  let playing = false;
  let timer = null;

  const slides = () => [...stage.querySelectorAll("[data-party-slide]")];

  function show(index) {
    const all = slides();
    if (all.length === 0) { currentID = null; return; }
    const at = ((index % all.length) + all.length) % all.length;
    all.forEach((slide, i) => {
      if (i !== at) for (const media of slide.querySelectorAll("audio, video")) media.pause();
      slide.classList.toggle("party__slide--current", i === at);
      // Only the slide on screen is read and reached by Tab.
      slide.inert = i !== at;
    });
    currentID = all[at].id;
    party.dataset.current = currentID;
    if (status) status.textContent = `Slide ${at + 1} of ${all.length}${paused ? ", paused" : ""}`;
  }

  const currentIndex = () => Math.max(0, slides().findIndex((slide) => slide.id === currentID));

  function move(step) {
    show(currentIndex() + step);
    restart();
  }

  function restart() {
    clearInterval(timer);
    timer = paused || playing ? null : setInterval(() => show(currentIndex() + 1), seconds * 1000);
  }

  function togglePause() {
    paused = !paused;
    pauseButton.setAttribute("aria-pressed", String(paused));
    pauseButton.textContent = paused ? "Play" : "Pause";
    party.dataset.paused = String(paused);
    show(currentIndex());
    restart();
  }

  party.classList.add("party--running");
  party.querySelector("[data-party-controls]").hidden = false;
  party.querySelector("[data-party-prev]").addEventListener("click", () => move(-1));
  party.querySelector("[data-party-next]").addEventListener("click", () => move(1));
  pauseButton.addEventListener("click", togglePause);
  stage.addEventListener("play", () => { playing = true; restart(); }, true);
  for (const type of ["pause", "ended"]) stage.addEventListener(type, () => { playing = false; restart(); }, true);

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    // A focused button or link keeps its own Space and Enter.
    const onControl = event.target instanceof Element && event.target.closest("button, a, input, select, textarea");
    if (event.key === "Escape") {
      window.location.assign(party.dataset.leave);
    } else if (event.key === "ArrowRight" || (event.key === " " && !onControl)) {
      event.preventDefault();
      move(1);
    } else if (event.key === "ArrowLeft") {
      event.preventDefault();
      move(-1);
    } else if (event.key === "p" || event.key === "P") {
      togglePause();
    }
  });

  // A live refresh brought a fresh stage: keep the same slide on screen, or
  // the first if it went.
  document.addEventListener("kith:swapped", () => show(currentIndex()));

  show(0);
  restart();
}

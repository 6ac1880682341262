// Kith's celebrations: confetti, fireworks and sparkles on a canvas that
// exists only while something is in the air. Under reduced motion nothing
// flies; the celebrated element holds a still golden glow for a moment.

const COLORS = ["#7C5CFC", "#FF6B9D", "#F5A623", "#5B8DEF", "#FFC857", "#2FBF71"];
let canvas, ctx, frame = 0, last = 0, pending = 0, parts = [];

const reduced = () => matchMedia("(prefers-reduced-motion: reduce)").matches;
const rand = (a, b) => a + Math.random() * (b - a);
const pick = (list) => list[(Math.random() * list.length) | 0];

function resize() {
  const r = Math.min(devicePixelRatio || 1, 2);
  canvas.width = innerWidth * r;
  canvas.height = innerHeight * r;
  ctx.setTransform(r, 0, 0, r, 0, 0);
}

function start() {
  if (!canvas) {
    canvas = document.createElement("canvas");
    canvas.className = "celebration-canvas";
    canvas.setAttribute("aria-hidden", "true");
    document.body.append(canvas);
    ctx = canvas.getContext("2d");
    resize();
    addEventListener("resize", resize);
  }
  if (!frame) {
    last = performance.now();
    frame = requestAnimationFrame(tick);
  }
}

// dt counts 60 Hz frames, capped so a tab back from the background does not
// fling everything off screen in one step.
function tick(now) {
  const dt = Math.min((now - last) / 16.7, 3);
  last = now;
  ctx.clearRect(0, 0, innerWidth, innerHeight);
  parts = parts.filter((p) => draw(p, dt));
  if (parts.length || pending) return (frame = requestAnimationFrame(tick));
  removeEventListener("resize", resize);
  canvas.remove();
  canvas = ctx = null;
  frame = 0;
}

function draw(p, dt) {
  if ((p.age += dt) > p.life || p.y > innerHeight + 40) return false;
  const drag = p.drag ** dt, x0 = p.x, y0 = p.y;
  p.vx *= drag;
  p.vy = p.vy * drag + p.gravity * dt;
  p.x += p.vx * dt + (p.kind == "confetti" ? Math.sin(p.age * p.wobble) * 0.6 : 0);
  p.y += p.vy * dt;
  p.spin += p.vspin * dt;
  ctx.globalAlpha = Math.min(1, (p.life - p.age) / 20);
  ctx.fillStyle = ctx.strokeStyle = p.color;
  ctx.beginPath();
  if (p.kind == "confetti") {
    ctx.save();
    ctx.translate(p.x, p.y);
    ctx.rotate(p.spin);
    ctx.scale(1, Math.cos(p.spin * 1.7)); // a paper flake's flutter
    p.round ? ctx.arc(0, 0, p.size / 2, 0, 7) : ctx.rect(-p.size / 2, -p.size / 3, p.size, p.size * 0.66);
    ctx.fill();
    ctx.restore();
  } else if (p.kind == "spark") {
    ctx.lineWidth = p.size;
    ctx.lineCap = "round";
    ctx.moveTo(x0 - p.vx * 2, y0 - p.vy * 2);
    ctx.lineTo(p.x, p.y);
    ctx.stroke();
  } else {
    // A four-pointed star that swells and fades.
    const r = p.size * Math.sin(Math.PI * (p.age / p.life));
    ctx.moveTo(p.x, p.y - r);
    for (const [dx, dy] of [[r, 0], [0, r], [-r, 0], [0, -r]]) ctx.quadraticCurveTo(p.x, p.y, p.x + dx, p.y + dy);
    ctx.fill();
  }
  return true;
}

function add(kind, x, y, angle, speed, extra) {
  parts.push({
    kind, x, y, age: 0, spin: rand(0, 6.3), vspin: rand(-0.2, 0.2), wobble: rand(0.05, 0.15),
    vx: Math.cos(angle) * speed, vy: Math.sin(angle) * speed, color: pick(COLORS),
    size: rand(7, 12), round: Math.random() < 0.3, drag: 0.985, gravity: 0.3, life: 240, ...extra,
  });
}

function centre(element) {
  const box = element?.getBoundingClientRect();
  return box?.width ? { x: box.left + box.width / 2, y: box.top + box.height / 2 } : null;
}

function stillGlow(element) {
  element?.classList.add("is-celebrated");
  setTimeout(() => element?.classList.remove("is-celebrated"), 2400);
}

// Paper confetti. From `origin` (an element or {x, y}) it bursts upward;
// without one, two cannons fire from the bottom corners of the window.
export function confetti({ origin = null, count = 140, spread = 0.9, speed = 17, colors = COLORS } = {}) {
  const element = origin instanceof Element ? origin : null;
  if (reduced()) return stillGlow(element);
  const from = element ? centre(element) : origin;
  const cannons = from
    ? [[from.x, from.y, -Math.PI / 2, count, 0.75]]
    : [[0, innerHeight, -Math.PI / 3, count / 2, 1.25], [innerWidth, innerHeight, (-2 * Math.PI) / 3, count / 2, 1.25]];
  for (const [x, y, angle, n, boost] of cannons) {
    for (let i = 0; i < n; i++) {
      add("confetti", x, y, angle + rand(-spread, spread) / 2, rand(0.45, 1) * speed * boost, { color: pick(colors) });
    }
  }
  start();
}

// A few bursts over the upper part of the window, one after another.
export function fireworks({ bursts = 5, duration = 1800, colors = COLORS } = {}) {
  if (reduced()) return;
  for (let b = 0; b < bursts; b++) {
    pending++;
    setTimeout(() => {
      const x = rand(0.15, 0.85) * innerWidth, y = rand(0.12, 0.45) * innerHeight, color = pick(colors);
      for (let i = 0; i < 70; i++) {
        add("spark", x, y, (i / 70) * Math.PI * 2 + rand(-0.05, 0.05), rand(2.5, 7.5), {
          color: Math.random() < 0.2 ? "#FFF4D6" : color, size: rand(2, 3.2), drag: 0.955, gravity: 0.05, life: rand(55, 85),
        });
      }
      pending--;
      start();
    }, (b * duration) / bursts + rand(0, 120));
  }
}

// Small golden stars twinkling out from an element.
export function sparkle(element) {
  if (reduced()) return stillGlow(element);
  const at = centre(element) || { x: innerWidth / 2, y: innerHeight / 3 };
  for (let i = 0; i < 18; i++) {
    add("star", at.x + rand(-20, 20), at.y + rand(-12, 12), rand(0, 6.3), rand(1, 3.5), {
      color: pick(["#F5A623", "#FFC857", "#FF6B9D"]), size: rand(5, 10), drag: 0.93, gravity: 0, life: rand(40, 70),
    });
  }
  start();
}

// One entry point for a celebration named in a data attribute.
export function celebrate(kind, element = null) {
  if (kind == "confetti") confetti({ origin: element });
  else if (kind == "fireworks") reduced() ? stillGlow(element) : fireworks();
  else if (kind == "sparkle") sparkle(element);
}

// Plays each `[data-celebrate]` under root once, marking it so that a later
// scan (after a live fragment swap) leaves it alone. One that names itself
// in `data-celebrate-once` plays once on this device, ever: a finished game
// is not celebrated again on every visit. One with `data-celebrate-seen`
// then tells the server, which stops drawing it for this person on every
// device; a page remembered here but not yet there tells it too.
export function scan(root = document) {
  const selector = "[data-celebrate]:not([data-celebrated])";
  const found = [...root.querySelectorAll(selector)];
  if (root.matches?.(selector)) found.unshift(root);
  for (const element of found) {
    const key = element.dataset.celebrateOnce && `kith:celebrated:${element.dataset.celebrateOnce}`;
    if (key && remembered(key)) {
      element.dataset.celebrated = "before";
      tellSeen(element);
      continue;
    }
    element.dataset.celebrated = "true";
    if (key) remember(key);
    celebrate(element.dataset.celebrate, element);
    tellSeen(element);
  }
}

// Posted as the page's own forms are, with their CSRF token; a failure
// (offline) only means it may play once more on another device.
function tellSeen(element) {
  const url = element.dataset.celebrateSeen;
  const token = document.querySelector("input[name=_csrf]")?.value;
  if (!url || !token || !window.fetch) return;
  const body = new URLSearchParams({ _csrf: token });
  fetch(url, { method: "POST", body, credentials: "same-origin", headers: { "X-Kith-Enhanced": "1" } })
    .then((response) => { if (response.ok) element.dataset.celebrateTold = "true"; })
    .catch(() => {});
}

// Storage can be refused (private modes, full quota): then it plays as before.
function remembered(key) {
  try { return localStorage.getItem(key) !== null; } catch { return false; }
}
function remember(key) {
  try { localStorage.setItem(key, "1"); } catch { /* plays again next time */ }
}

// Plays `[data-celebrate-on-click]`'s celebration from the element on every click.
export function wireClickDemos(root = document) {
  for (const element of root.querySelectorAll("[data-celebrate-on-click]:not([data-celebrate-wired])")) {
    element.dataset.celebrateWired = "true";
    element.addEventListener("click", () => celebrate(element.dataset.celebrateOnClick, element));
  }
}

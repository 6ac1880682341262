// A person's own order of their tallies ("My order"), and a pinned tally
// opened from its home-screen shortcut.
//
// Without this file Move up / Move down are forms that post and land back on
// the row. Here they move the row in place and post without a reload, and
// each row gains a handle to drag it (pointer events, so mouse, pen and
// touch alike). Every move is sent as where the row now is (`to`, 1 first);
// the server answers with the sentence the status line reads out.

const LIST = '.tally-list[data-order="manual"]';

function csrf() {
  return document.querySelector("input[name=_csrf]")?.value || "";
}

// The status line lives outside the list, which a live refresh replaces
// whole, and exists from the start, so screen readers are listening to it.
const status = document.createElement("p");
status.className = "visually-hidden";
status.setAttribute("role", "status");
status.dataset.orderStatus = "";
document.body.append(status);

function say(text) {
  // Cleared first, so the same sentence twice is announced twice.
  status.textContent = "";
  requestAnimationFrame(() => { status.textContent = text; });
}

async function send(row, fields) {
  const form = row.querySelector(".tally-move form");
  const body = new URLSearchParams(fields);
  body.set("_csrf", csrf());
  const response = await fetch(form.action, {
    method: "POST", body, credentials: "same-origin", headers: { "X-Kith-Enhanced": "1" },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(text);
  return text;
}

function position(row) {
  return [...row.parentElement.children].indexOf(row) + 1;
}

async function moved(row) {
  try {
    say(await send(row, { to: String(position(row)) }));
  } catch {
    say("Not saved: the order will come back as it was. Try again.");
  }
}

// Move up / Move down: the row moves at once and keeps its focus.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.closest(`${LIST} .tally-move`) || !window.fetch) return;
  event.preventDefault();
  const row = form.closest(".tally-row");
  const up = event.submitter?.value === "up";
  const sibling = up ? row.previousElementSibling : row.nextElementSibling;
  if (!sibling) {
    say(`${row.querySelector(".tally-row__name")?.textContent ?? "It"} is already ${up ? "first" : "last"}.`);
    return;
  }
  const focused = document.activeElement;
  if (up) sibling.before(row); else sibling.after(row);
  if (focused instanceof HTMLElement && row.contains(focused)) focused.focus({ preventScroll: false });
  moved(row);
});

// Dragging by the handle. The row follows the pointer; it takes the place of
// whichever row's middle it passes, and the order is sent when it is let go.
function drag(handle, start) {
  const row = handle.closest(".tally-row");
  const list = row.parentElement;
  const before = position(row);
  let lastY = start.clientY;
  row.classList.add("is-dragging");
  const move = (event) => {
    if (event.pointerId !== start.pointerId) return;
    const y = event.clientY;
    const down = y > lastY;
    lastY = y;
    for (const other of [...list.children]) {
      if (other === row) continue;
      const box = other.getBoundingClientRect();
      const middle = box.top + box.height / 2;
      if (down && y > middle && row.compareDocumentPosition(other) & Node.DOCUMENT_POSITION_FOLLOWING) other.after(row);
      if (!down && y < middle && row.compareDocumentPosition(other) & Node.DOCUMENT_POSITION_PRECEDING) { other.before(row); break; }
    }
  };
  // Heard on the document, not captured by the handle: moving the row in
  // the page releases any capture, and the drag must go on regardless.
  const end = (event) => {
    if (event.pointerId !== start.pointerId) return;
    document.removeEventListener("pointermove", move);
    document.removeEventListener("pointerup", end);
    document.removeEventListener("pointercancel", end);
    row.classList.remove("is-dragging");
    if (position(row) !== before) moved(row);
  };
  document.addEventListener("pointermove", move);
  document.addEventListener("pointerup", end);
  document.addEventListener("pointercancel", end);
}

document.addEventListener("pointerdown", (event) => {
  const handle = event.target instanceof Element ? event.target.closest(`${LIST} [data-drag-handle]`) : null;
  if (!handle || (event.pointerType === "mouse" && event.button !== 0)) return;
  event.preventDefault();
  drag(handle, event);
});

// ---------------------------------------------------------------------------
// Opened from its shortcut, the count fills the screen and a tap anywhere on
// it counts, not only on the number.

function wireStandalone() {
  const page = document.querySelector(".tally-full[data-standalone]");
  if (!page) return;
  page.addEventListener("click", (event) => {
    const target = event.target;
    if (!(target instanceof Element) || target.closest("a, button, input, select, textarea, label, summary, form")) return;
    if (!target.closest(".tally-face")) return;
    page.querySelector(".tally-face__count")?.click();
  });
}

wireStandalone();

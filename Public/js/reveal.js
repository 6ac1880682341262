// The reveal: unlocking a gift opens it full screen. The card turns over
// (a calm fade when motion is reduced), then the letter, photos or player
// appear. Without this script the unlock form posts and the browser lands on
// the gift's own page, which shows the opened gift.
//
// The unlock posts as the form would; the page the server sends back (the
// gift's page) is the source of what the reveal shows, so the reveal can
// never show more than the celebrant's own page would.

const ENHANCED = { "X-Kith-Enhanced": "1" };

function build(title, notice, content, href) {
  const dialog = document.createElement("dialog");
  dialog.className = "reveal";
  dialog.setAttribute("aria-labelledby", "reveal-title");
  dialog.innerHTML = `
    <div class="reveal__stage">
      <h2 class="reveal__title" id="reveal-title" tabindex="-1"></h2>
      <p class="reveal__notice" role="status"></p>
      <div class="reveal__card">
        <div class="reveal__front" aria-hidden="true"><span class="reveal__bow">🎁</span></div>
        <div class="reveal__back"></div>
      </div>
      <div class="cluster reveal__actions">
        <a class="button button--secondary button--small" data-reveal-thanks>Say thank you</a>
        <button class="button button--small" type="button" data-reveal-close>Close</button>
      </div>
    </div>`;
  dialog.querySelector(".reveal__title").textContent = title;
  dialog.querySelector(".reveal__notice").textContent = notice;
  dialog.querySelector(".reveal__back").append(...content.childNodes);
  dialog.querySelector("[data-reveal-thanks]").href = `${href}#thanks`;
  return dialog;
}

async function reveal(form, submitter) {
  const card = form.closest("[data-gift]");
  const giftID = card ? card.dataset.gift : null;
  const response = await fetch(form.action, {
    method: "POST", body: new FormData(form, submitter), credentials: "same-origin", headers: ENHANCED,
  });
  const html = await response.text();
  const page = new DOMParser().parseFromString(html, "text/html");
  const content = page.querySelector("[data-gift-content]");
  // Refused (not enough points, closed) or something unexpected: show the
  // server's own page, as the browser would have.
  if (!response.ok || !content) {
    window.location.assign(response.url || window.location.href);
    return;
  }
  const title = (page.querySelector("main h2") || page.querySelector("title")).textContent.trim();
  // The server's own word for it ("Unlocked!"), left for the page it sent.
  const flash = page.querySelector(".flash");
  const dialog = build(title, flash ? flash.textContent.trim() : "", content, response.url);
  document.body.append(dialog);
  dialog.addEventListener("close", () => {
    dialog.remove();
    // The page behind has been refreshed live: the card is open now.
    const back = (giftID && document.querySelector(`[data-gift="${giftID}"] .gift-card__link`))
      || document.querySelector("[data-gift-content]") || document.querySelector("main h1");
    if (back) {
      if (!back.hasAttribute("tabindex") && !back.matches("a, button")) back.setAttribute("tabindex", "-1");
      back.focus();
    }
    // On the gift's own page, what stands behind is the old, locked copy.
    if (window.location.pathname === new URL(response.url).pathname && !document.querySelector("[data-gift-content]")) {
      window.location.assign(response.url);
    }
  });
  dialog.querySelector("[data-reveal-close]").addEventListener("click", () => dialog.close());
  dialog.showModal();
  // Players in the reveal get the same loading and error states as on the page.
  dialog.dispatchEvent(new CustomEvent("kith:swapped", { bubbles: true }));
  dialog.querySelector(".reveal__title").focus();
  // The next frame starts the turn, so the closed card is painted first.
  requestAnimationFrame(() => requestAnimationFrame(() => dialog.classList.add("reveal--open")));
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.matches(".gift-card__unlock")) return;
  if (!window.fetch || !window.DOMParser || !window.HTMLDialogElement) return;
  event.preventDefault();
  const submitter = event.submitter && event.submitter.form === form ? event.submitter : undefined;
  if (form.dataset.revealing) return;
  form.dataset.revealing = "1";
  reveal(form, submitter)
    .catch(() => HTMLFormElement.prototype.submit.call(form))
    .finally(() => { delete form.dataset.revealing; });
});

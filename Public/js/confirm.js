// Destructive actions ask first, in the server's words.
//
// A destructive form carries the sentence the server wrote from the database
// (`data-confirm`, `data-confirm-detail`, `data-confirm-button`) and the token
// of that sentence (`data-confirm-token`). Without this script the form posts
// without the token and the server answers with its confirm page; here the
// same words open in a native <dialog> with no round trip, and confirming
// posts the form with the token. The server checks the token against the
// sentence it would write now, so it never takes the browser's word for what
// is destroyed.
//
// Undo notices (`[data-undo-notice]`) leave once their window has passed.

const TOKEN_FIELD = "confirmed";
let dialog = null;
let pending = null;

function build() {
  const element = document.createElement("dialog");
  element.className = "confirm-dialog";
  element.setAttribute("aria-labelledby", "confirm-dialog-title");
  element.setAttribute("aria-describedby", "confirm-dialog-detail");
  element.innerHTML = `
    <h2 class="confirm-dialog__question" id="confirm-dialog-title"></h2>
    <p class="confirm-dialog__detail" id="confirm-dialog-detail"></p>
    <div class="cluster confirm-dialog__actions">
      <button class="button button--secondary" type="button" data-confirm-cancel>Cancel</button>
      <button class="button button--danger" type="button" data-confirm-go></button>
    </div>`;
  element.querySelector("[data-confirm-cancel]").addEventListener("click", () => element.close("cancel"));
  element.querySelector("[data-confirm-go]").addEventListener("click", () => element.close("confirm"));
  // Escape fires `cancel` and closes; either way `close` says which.
  element.addEventListener("close", () => finish(element.returnValue === "confirm"));
  document.body.append(element);
  return element;
}

function ask(form, submitter) {
  dialog = dialog && dialog.isConnected ? dialog : build();
  dialog.querySelector(".confirm-dialog__question").textContent = form.dataset.confirm;
  const detail = dialog.querySelector(".confirm-dialog__detail");
  detail.textContent = form.dataset.confirmDetail || "";
  detail.hidden = !detail.textContent;
  dialog.querySelector("[data-confirm-go]").textContent = form.dataset.confirmButton || "Confirm";
  pending = { form, submitter, opener: submitter || document.activeElement };
  dialog.returnValue = "";
  dialog.showModal();
  // The safe choice has focus: Enter or Space on arrival changes nothing.
  dialog.querySelector("[data-confirm-cancel]").focus();
}

function finish(confirmed) {
  const current = pending;
  pending = null;
  if (!current) return;
  const { form, submitter, opener } = current;
  if (!confirmed) {
    if (opener && opener.isConnected) opener.focus();
    return;
  }
  let field = form.querySelector(`input[name="${TOKEN_FIELD}"]`);
  if (!field) {
    field = document.createElement("input");
    field.type = "hidden";
    field.name = TOKEN_FIELD;
    form.append(field);
  }
  field.value = form.dataset.confirmToken || "";
  form.dataset.confirming = "yes";
  // A plain form leaves the page. Its action may end this page's own access
  // (a tally deleted, a member removed): the live stream would then be told
  // "revoked" and reload this page over the navigation already under way.
  // The page is leaving, so it says so now, as it will once it has left.
  if (!form.hasAttribute("data-enhance")) window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: false }));
  // Submitted again, so another script's enhancement of the form still runs.
  if (submitter && submitter.form === form) form.requestSubmit(submitter);
  else form.requestSubmit();
}

// Capturing on window runs before any other page script's submit listener.
window.addEventListener(
  "submit",
  (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-confirm")) return;
    if (form.dataset.confirming === "yes") {
      delete form.dataset.confirming;
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    ask(form, event.submitter);
  },
  true,
);

function expireNotices(root) {
  for (const notice of root.querySelectorAll("[data-undo-notice]:not([data-undo-timed])")) {
    notice.setAttribute("data-undo-timed", "");
    const seconds = Number(notice.dataset.undoSeconds) || 0;
    setTimeout(() => notice.remove(), Math.max(0, seconds) * 1000);
  }
}

expireNotices(document);
new MutationObserver(() => expireNotices(document)).observe(document.body, { childList: true, subtree: true });

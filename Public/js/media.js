// Media in occasions: upload progress, the voice recorder, and players
// that say when something is loading or cannot play. Without this script
// every form still posts and every player still has the browser's controls.

// ---------------------------------------------------------------------------
// Uploads with progress
//
// `<form data-upload>`: sent with XMLHttpRequest so the page can show how
// far the upload has gone; the server's redirect is followed, and the page
// it leads to replaces this one. A refusal (4xx page) puts its message in
// the form's status line instead.

// The refusal's own message, in order of preference. A selector list would
// take whichever match comes first in the page, which is the page's date
// line long before the upload's error, so each place is asked in turn.
const refusalPlaces = ["#upload-error", ".error-page > p:not(.error-page__code)"];

function showRefusal(status, html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const found = refusalPlaces.map((place) => doc.querySelector(place)).find((element) => element && element.textContent.trim());
  status.textContent = found ? found.textContent.trim() : "That didn't upload. Please try again.";
}

function send(url, body, progress, status) {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open("POST", url);
    request.upload.addEventListener("progress", (event) => {
      if (!event.lengthComputable) return;
      const percent = Math.round((event.loaded / event.total) * 100);
      progress.value = percent;
      status.textContent = `Uploading… ${percent}%`;
    });
    request.addEventListener("load", () => {
      if (request.status >= 200 && request.status < 300) {
        status.textContent = "Uploaded.";
        window.location.assign(request.responseURL || window.location.href);
      } else {
        progress.hidden = true;
        showRefusal(status, request.responseText);
      }
      resolve();
    });
    request.addEventListener("error", () => {
      progress.hidden = true;
      status.textContent = "The connection dropped before the upload finished. Nothing was kept; please try again.";
      resolve();
    });
    progress.hidden = false;
    progress.value = 0;
    status.textContent = "Uploading…";
    request.send(body);
  });
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-upload")) return;
  if (!window.XMLHttpRequest || !window.FormData) return;
  event.preventDefault();
  const progress = form.querySelector("progress");
  const status = form.querySelector(".upload-form__status");
  const button = form.querySelector("button[type=submit]");
  if (button) button.disabled = true;
  send(form.action, new FormData(form), progress, status).then(() => {
    if (button) button.disabled = false;
  });
});

// ---------------------------------------------------------------------------
// The recorders: a voice note (microphone) or a video (camera)
//
// Shown only where recording can work: a secure context with MediaRecorder
// and a microphone. Elsewhere the file inputs beside them are the way, and
// stay the way when permission is refused. A video is checked and limited
// by the server exactly as an uploaded one: it arrives as the same field.

const recordingTypes = {
  voice: ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/mp4", "audio/webm"],
  video: ["video/webm;codecs=vp8,opus", "video/webm;codecs=vp9,opus", "video/webm", "video/mp4"],
};

function clock(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function setUpRecorder(root) {
  const canRecord = window.isSecureContext && window.MediaRecorder && navigator.mediaDevices && navigator.mediaDevices.getUserMedia;
  if (!canRecord) return;
  root.hidden = false;
  const video = root.dataset.recorderKind === "video";
  const field = video ? "video" : "voice";
  const $ = (name) => root.querySelector(`[data-recorder-${name}]`);
  const start = $("start"), stop = $("stop"), timer = $("timer"), preview = $("preview");
  const review = $("review"), save = $("save"), again = $("again"), status = $("status");
  const progress = root.querySelector("progress");
  let recorder = null, chunks = [], began = 0, ticking = 0, blob = null, duration = 0, stream = null;

  function reset() {
    blob = null;
    duration = 0;
    timer.textContent = "0:00";
    preview.hidden = true;
    preview.removeAttribute("src");
    review.hidden = true;
    start.hidden = false;
    stop.hidden = true;
  }

  start.addEventListener("click", async () => {
    try {
      stream = await navigator.mediaDevices.getUserMedia(video ? { audio: true, video: { facingMode: "user" } } : { audio: true });
    } catch {
      status.textContent = video
        ? "Kith can't use the camera here. Choose a video from a file above instead."
        : "Kith can't use the microphone here. Choose a recording from a file below instead.";
      root.hidden = true;
      return;
    }
    const type = recordingTypes[field].find((candidate) => MediaRecorder.isTypeSupported(candidate)) || "";
    recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    chunks = [];
    recorder.addEventListener("dataavailable", (event) => { if (event.data.size) chunks.push(event.data); });
    recorder.addEventListener("stop", () => {
      duration = Date.now() - began;
      clearInterval(ticking);
      stream.getTracks().forEach((track) => track.stop());
      blob = new Blob(chunks, { type: recorder.mimeType || type || (video ? "video/webm" : "audio/webm") });
      preview.srcObject = null;
      preview.muted = false;
      preview.controls = true;
      preview.src = URL.createObjectURL(blob);
      preview.hidden = false;
      review.hidden = false;
      stop.hidden = true;
      status.textContent = `Recorded ${clock(duration)}. ${video ? "Watch" : "Listen"}, then save it or record again.`;
      save.focus();
    });
    began = Date.now();
    recorder.start(250);
    ticking = setInterval(() => { timer.textContent = clock(Date.now() - began); }, 250);
    start.hidden = true;
    stop.hidden = false;
    review.hidden = true;
    // A video shows what the camera sees while it records, silently.
    preview.hidden = !video;
    if (video) {
      preview.muted = true;
      preview.controls = false;
      preview.srcObject = stream;
      preview.play().catch(() => {});
    }
    status.textContent = "Recording…";
    stop.focus();
  });

  stop.addEventListener("click", () => { if (recorder && recorder.state === "recording") recorder.stop(); });
  again.addEventListener("click", () => { reset(); start.focus(); });
  save.addEventListener("click", () => {
    if (!blob) return;
    const form = new FormData();
    const token = document.querySelector("input[name=_csrf]");
    if (token) form.append("_csrf", token.value);
    const extension = blob.type.includes("ogg") ? "ogg" : blob.type.includes("mp4") ? (video ? "mp4" : "m4a") : "webm";
    form.append(field, blob, `${video ? "video" : "voice-note"}.${extension}`);
    form.append("duration_ms", String(duration));
    save.disabled = true;
    send(root.dataset.action, form, progress, status).then(() => { save.disabled = false; });
  });
}

// ---------------------------------------------------------------------------
// Players: loading and error states

function watchMedia(root) {
  for (const figure of root.querySelectorAll("[data-media]")) {
    if (figure.dataset.watched) continue;
    figure.dataset.watched = "1";
    const error = figure.querySelector("[data-media-error]");
    const loading = figure.querySelector("[data-media-loading]");
    const element = figure.querySelector("img, video, audio");
    if (!element) continue;
    const failed = () => { if (error) error.hidden = false; if (loading) loading.hidden = true; };
    if (element.tagName === "IMG") {
      element.addEventListener("error", failed);
      if (element.complete && element.naturalWidth === 0 && element.currentSrc) failed();
      continue;
    }
    const source = element.querySelector("source");
    (source || element).addEventListener("error", failed);
    element.addEventListener("waiting", () => { if (loading) loading.hidden = false; });
    for (const done of ["loadedmetadata", "canplay", "playing"]) {
      element.addEventListener(done, () => { if (loading) loading.hidden = true; });
    }
  }
}

for (const root of document.querySelectorAll("[data-recorder]")) setUpRecorder(root);
watchMedia(document);
document.addEventListener("kith:swapped", (event) => watchMedia(event.target));

// Tally goals, celebrated: when a live swap or a tap's answer brings a
// tally whose goal was not met on this page and now is, fireworks go off
// from its ring or bar (a still glow when motion is reduced) and a screen
// reader hears "Goal met". Landing on a page whose goal is already met
// plays nothing: only the moment of meeting it is news.

import { announce } from "./queue.js";

const motion = import("./motion.js").catch(() => null);
const SELECTOR = "[data-goal-met]";

// Each tally's ring and bar, by tally id and kind, with whether it was met.
const known = new Map();

function key(element) {
  const tally = element.closest("[data-tally]")?.dataset.tally;
  return tally ? `${tally}:${element.className}` : null;
}

function look(root, celebrate) {
  const found = root.matches?.(SELECTOR) ? [root] : [...(root.querySelectorAll?.(SELECTOR) ?? [])];
  for (const element of found) {
    const id = key(element);
    if (!id) continue;
    const met = element.dataset.goalMet === "1";
    if (celebrate && met && known.get(id) === false) goalMet(element);
    known.set(id, met);
  }
}

async function goalMet(element) {
  const text = element.querySelector(".tally-goal__progress")?.textContent;
  announce(text ? `Goal met: ${text}` : "Goal met");
  const module = await motion;
  module?.celebrate("fireworks", element);
}

look(document, false);
new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) if (node.nodeType === Node.ELEMENT_NODE) look(node, true);
  }
}).observe(document.body, { childList: true, subtree: true });

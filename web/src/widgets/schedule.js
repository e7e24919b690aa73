'use strict';
// Hands out turns, one task each, to widgets that are ready to draw: those in view first,
// then the rest in page order. A page with many widgets so never runs them all in one long
// task, and what the reader sees is drawn first.

const queue = [];
let pumping = false;

function inView(el) {
  const view = el.ownerDocument.defaultView;
  const r = el.getBoundingClientRect();
  return r.bottom >= 0 && r.top <= (view ? view.innerHeight : 0);
}

function next() {
  if (!queue.length) {
    pumping = false;
    return;
  }
  let i = queue.findIndex((item) => item.el.isConnected && inView(item.el));
  if (i < 0) i = 0;
  const [item] = queue.splice(i, 1);
  item.resolve();
  setTimeout(next, 0);
}

/** Resolves in a task of its own (the widget's code runs right after, in that task). */
function turn(el) {
  return new Promise((resolve) => {
    queue.push({ el, resolve });
    if (!pumping) {
      pumping = true;
      setTimeout(next, 0);
    }
  });
}

/** Resolves in a new task, so long work can be split into pieces the page can breathe between. */
function pause() {
  return new Promise((resolve) => {
    if (typeof MessageChannel === 'function') {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(null);
    } else {
      setTimeout(resolve, 0);
    }
  });
}

/** Milliseconds since the page started, for work budgets. */
const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

module.exports = { turn, pause, now };

'use strict';
// Hands out turns, one task each, to widgets that are ready to draw: those in view first,
// then the rest in page order. A page with many widgets so never runs them all in one long
// task, and what the reader sees is drawn first. Whether a widget is in view comes from an
// IntersectionObserver (computed by the browser when it renders anyway), never from reading
// the layout, which would force a layout of the whole page in each turn.

const queue = [];
let pumping = false;
let waiting = false;
let waitTimer = null;
const WAIT_MS = 100;  // longest wait for the observer's first report on a widget

// element -> true (in view) or false, once the observer has reported on it.
const visible = new WeakMap();
const observers = new WeakMap();
// element -> callback for the observer's reports (see watch).
const listeners = new WeakMap();
// Widgets not yet started, waiting to come near the viewport (near()): element -> resolve.
const distant = new Map();
const nearObservers = new WeakMap();
// How near is near: a screen above or below the viewport (and beside it), so that a widget
// is drawn by the time a reader scrolls to it.
const NEAR_MARGIN = '100% 100% 100% 100%';

function observer(el) {
  const view = el.ownerDocument.defaultView;
  if (!view || typeof view.IntersectionObserver !== 'function') return null;
  let io = observers.get(view);
  if (!io) {
    io = new view.IntersectionObserver((entries) => {
      for (const e of entries) {
        visible.set(e.target, e.isIntersecting);
        const listener = listeners.get(e.target);
        if (listener) listener(e);
      }
      wake();
    });
    observers.set(view, io);
  }
  return io;
}

/**
 * Starts following whether `el` is in view (before it asks for a turn, so the answer is
 * ready). `onReport(entry)`, if given, runs on each report, right after a rendering of the
 * page, when reading its styles costs nothing more.
 */
function watch(el, onReport) {
  if (onReport) listeners.set(el, onReport);
  const io = observer(el);
  if (io) io.observe(el);
  else visible.set(el, false);  // no observer: page order
}

function startNear(el) {
  const resolve = distant.get(el);
  if (!resolve) return;
  distant.delete(el);
  const io = nearObservers.get(el.ownerDocument.defaultView);
  if (io) io.unobserve(el);
  resolve();
}

function nearObserver(view) {
  let io = nearObservers.get(view);
  if (!io) {
    io = new view.IntersectionObserver((entries) => {
      // Those in the viewport itself start before those only near it, so they queue first.
      const inside = (e) => e.boundingClientRect.bottom > 0 && e.boundingClientRect.top < view.innerHeight;
      const near = entries.filter((e) => e.isIntersecting);
      for (const e of [...near.filter(inside), ...near.filter((e) => !inside(e))]) startNear(e.target);
    }, { rootMargin: NEAR_MARGIN });
    nearObservers.set(view, io);
    // A printed page shows every widget, near or not.
    view.addEventListener('beforeprint', () => {
      for (const el of [...distant.keys()]) if (el.ownerDocument.defaultView === view) startNear(el);
    });
  }
  return io;
}

/**
 * Resolves once `el` comes within a screen of the viewport, so that a widget far below does
 * no work while the page loads (nor until the reader scrolls near it); at once where there is
 * no IntersectionObserver. A widget out of the layout (display: none) waits until it is shown.
 */
function near(el) {
  const view = el.ownerDocument.defaultView;
  if (!view || typeof view.IntersectionObserver !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const before = distant.get(el);
    distant.set(el, before ? () => { before(); resolve(); } : resolve);
    nearObserver(view).observe(el);
  });
}

/** Whether the observer last reported `el` in view (false before its first report). */
const inView = (el) => visible.get(el) === true;

/** Stops following `el` (removed from the page). */
function unwatch(el) {
  const io = observer(el);
  if (io) io.unobserve(el);
  startNear(el);  // its build ends (overtaken); a new one waits again if it comes back
  visible.delete(el);
  listeners.delete(el);
}

function wake() {
  if (!waiting) return;
  waiting = false;
  clearTimeout(waitTimer);
  setTimeout(next, 0);
}

function next() {
  if (!queue.length) {
    pumping = false;
    return;
  }
  let i = queue.findIndex((item) => item.el.isConnected && visible.get(item.el) === true);
  if (i < 0) {
    // The observer reports on a widget at the next rendering: wait for that (briefly)
    // rather than draw a widget out of view before one in view.
    const young = queue.filter((item) => item.el.isConnected && !visible.has(item.el)).map((item) => WAIT_MS - (now() - item.since));
    const wait = Math.max(0, ...young);
    if (wait > 0) {
      waiting = true;
      waitTimer = setTimeout(wake, wait);
      return;
    }
    i = 0;
  }
  const [item] = queue.splice(i, 1);
  item.resolve();
  afterRendering(item.el, next);
}

/**
 * Runs fn in a task after the page's next rendering, so each widget's first layout and
 * paint happen in a frame of their own instead of adding up in one. A page that does not
 * render (a hidden tab) goes on by a timer.
 */
function afterRendering(el, fn) {
  const doc = el.ownerDocument;
  const view = doc.defaultView;
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(fallback);
    setTimeout(fn, 0);
  };
  const rendering = view && typeof view.requestAnimationFrame === 'function' && doc.visibilityState !== 'hidden';
  const fallback = setTimeout(once, rendering ? 1000 : 0);
  if (rendering) view.requestAnimationFrame(once);
}

/** Resolves in a task of its own (the widget's code runs right after, in that task). */
function turn(el) {
  return new Promise((resolve) => {
    if (!visible.has(el)) watch(el);
    queue.push({ el, resolve, since: now() });
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

// Whether the page's deferred scripts have all run: they run before DOMContentLoaded, in page
// order, so a script loaded with defer after the kit (a model's) has run by then. Read when the
// kit runs: a kit run later than that (async, or added by a script) waits for the load event.
let scriptsDone = null;
/** Resolves once the page's deferred scripts have run (at once in a worker or a page already loaded). */
function scriptsRun() {
  if (!scriptsDone) {
    const doc = typeof document === 'undefined' ? null : document;
    scriptsDone = !doc || doc.readyState === 'complete' ? Promise.resolve() : new Promise((resolve) => {
      doc.addEventListener('DOMContentLoaded', resolve, { once: true });
      window.addEventListener('load', resolve, { once: true });
    });
  }
  return scriptsDone;
}
if (typeof document !== 'undefined') scriptsRun();

/** Milliseconds since the page started, for work budgets. */
const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

module.exports = { turn, near, scriptsRun, watch, unwatch, inView, pause, afterRendering, now };

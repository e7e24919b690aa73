'use strict';
// What a widget may know of, and do to, the page that hosts it: the page's colour scheme,
// its opt-out of URL state, its ids, one console line per problem, and the one URL write.
// Nothing here throws: a page the widget cannot read or write (sandboxed frames, srcdoc,
// a <base href> on another origin) just gets no URL state.

const urlState = require('../ui/url-state.js');
const { luminance } = require('../ui/colors.js');
const { ownKey } = require('../ui/own-keys.js');

const logged = new Set();
let urlBroken = false;

/** Writes one line to the console, once per page for the same text. */
function logOnce(text, cause) {
  if (logged.has(text) || typeof console === 'undefined') return;
  logged.add(text);
  if (text === 'engine') {
    console.warn('attention-lab: the engine could not start:', cause && cause.cause ? cause.cause : cause);
  } else {
    console.warn(text);
  }
}

/** The sentence a reader sees when the page's security settings (or the browser) stop WebAssembly. */
function wasmBlocked(err) {
  return err && err.code === 'wasm-unsupported'
    ? 'This browser cannot run WebAssembly, which these diagrams need.'
    : 'This page\u2019s security settings block WebAssembly, which these diagrams need.';
}

function pageUrlStateOff(doc) {
  const meta = doc.querySelector('meta[name="attention-lab"]');
  return Boolean(meta && /(^|[\s,;])url-state\s*=\s*off\b/.test(meta.getAttribute('content') || ''));
}

// The connected widgets, also those inside other components' shadow roots, where the
// document's getElementById cannot see them: an id there is unique only in its own root,
// but the URL they would write is the page's.
const widgets = new Set();

function track(el, connected) {
  if (connected) {
    widgets.add(el);
    watchPageTheme(el.ownerDocument);
  } else {
    widgets.delete(el);
  }
  followClip(el, connected);
}

// Documents whose theme switches are watched (one watcher each, for the document's life).
const watchedDocs = new WeakSet();

/**
 * Tells the widgets of `doc` (el.hostChanged()) when the page may have repainted behind them:
 * a theme switch sets a class or data attribute on <html> or <body> (MkDocs Material's palette
 * toggle sets data-md-color-scheme on <body> and changes the background, not color-scheme,
 * which light-dark() alone would follow), adds or switches a stylesheet, or ends a transition
 * of a background colour. Once per frame at most, after the page's own changes.
 */
function watchPageTheme(doc) {
  const view = doc.defaultView;
  if (watchedDocs.has(doc) || !view || typeof view.MutationObserver !== 'function') return;
  watchedDocs.add(doc);
  let queued = false;
  const changed = () => {
    if (queued) return;
    queued = true;
    view.requestAnimationFrame(() => {
      queued = false;
      for (const el of widgets) if (el.ownerDocument === doc && typeof el.hostChanged === 'function') el.hostChanged();
    });
  };
  const observer = new view.MutationObserver(changed);
  observer.observe(doc.documentElement, { attributes: true });
  if (doc.body) observer.observe(doc.body, { attributes: true });
  if (doc.head) observer.observe(doc.head, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['media', 'disabled', 'href', 'rel'] });
  doc.addEventListener('transitionend', (e) => { if (/background/.test(e.propertyName)) changed(); }, true);
}

/** The connected widgets, in no particular order. */
function connectedWidgets() {
  return Array.from(widgets);
}

function duplicateId(el) {
  const root = el.getRootNode();
  const tree = typeof root.getElementById === 'function' ? root : el.ownerDocument;
  if (tree.getElementById(el.id) !== el) return true;
  let count = 0;
  for (const other of tree.querySelectorAll('[id]')) if (other.id === el.id && ++count > 1) return true;
  for (const other of widgets) if (other !== el && other.id === el.id) return true;
  return false;
}

/** The element around `node`, stepping out of a shadow root to its host. */
const around = (node) => node.parentElement || node.getRootNode().host || null;

function parseRgb(text) {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(text || '');
  if (!m) return null;
  const alpha = m[4] === undefined ? 1 : m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
  return alpha < 0.5 ? null : [Number(m[1]), Number(m[2]), Number(m[3])];
}

/**
 * 'dark', 'light' or 'auto' for a widget whose theme attribute is auto: a page that declares
 * a colour scheme is followed by the stylesheet itself (light-dark()); a page that only paints
 * a dark background behind the widget gets the dark theme.
 */
function hostTheme(el) {
  const view = el.ownerDocument.defaultView;
  if (!view || !view.getComputedStyle) return 'auto';
  try {
    for (let node = around(el); node; node = around(node)) {
      const rgb = parseRgb(view.getComputedStyle(node).backgroundColor);
      if (rgb) return luminance(rgb) < 0.2 ? 'dark' : 'auto';
    }
  } catch (_) { /* unreadable styles: follow the colour scheme */ }
  return 'auto';
}

// A widget too tall for a box around it that clips and does not scroll (a reveal.js deck,
// a fixed-height card) would run past its edge where the reader cannot scroll to it: its
// frame then takes the height left in that box and scrolls inside (--_fit, .al-fit).
const MIN_FIT_PX = 120;  // a box with less room left than this: no use scrolling inside it
const fitObservers = new WeakMap();  // window -> ResizeObserver of its widgets and their boxes
const clipBoxes = new WeakMap();  // widget -> the clipping box it was last measured in

/** The nearest box around `el` that clips without letting the reader scroll, or null. */
function clipBox(el, view) {
  for (let node = around(el); node; node = around(node)) {
    const overflow = view.getComputedStyle(node).overflowY;
    if (overflow === 'auto' || overflow === 'scroll') return null;
    if (overflow === 'hidden' || overflow === 'clip') return node === el.ownerDocument.body || node === el.ownerDocument.documentElement ? null : node;
  }
  return null;
}

/** Caps the widget's frame at the room left in its clipping box, or lifts the cap. */
function fitInClip(el) {
  const view = el.ownerDocument.defaultView;
  const frame = el.frame;
  if (!view || !frame || !el.isConnected) return;
  const box = clipBox(el, view);
  const before = clipBoxes.get(el);
  if (box !== before) {
    if (before) observerFor(view).unobserve(before);
    if (box) observerFor(view).observe(box);
    clipBoxes.set(el, box);
  }
  let room = null;
  if (box && el.offsetWidth > 0) {
    const r = el.getBoundingClientRect();
    // A deck scales its slides. From the width, not the height: offset sizes are whole pixels,
    // and a widget still loading is only a few pixels tall (1 px off there was a 14% error).
    const scale = r.width / el.offsetWidth;
    const b = box.getBoundingClientRect();
    const clipEdge = b.top + (box.clientTop + box.clientHeight) * (b.width / box.offsetWidth || 1);  // its padding box's bottom
    const left = (clipEdge - r.top) / scale;
    const natural = frame.classList.contains('al-fit') ? frame.scrollHeight + frame.offsetHeight - frame.clientHeight : el.offsetHeight;
    if (natural > left + 1 && left >= MIN_FIT_PX) room = Math.floor(left);
  }
  frame.classList.toggle('al-fit', room !== null);
  if (room === null) frame.style.removeProperty('--_fit');
  else frame.style.setProperty('--_fit', `${room}px`);
}

function observerFor(view) {
  let ro = fitObservers.get(view);
  if (!ro) {
    const resized = new Set();
    // Measured in the next frame, not in the observer's callback, where a new cap would
    // resize what it observes in the same frame.
    const queue = (targets) => {
      if (resized.size === 0) {
        view.requestAnimationFrame(() => {
          for (const el of widgets) if (resized.has(el) || resized.has(clipBoxes.get(el))) fitInClip(el);
          resized.clear();
        });
      }
      for (const t of targets) resized.add(t);
    };
    ro = new view.ResizeObserver((entries) => queue(entries.map((e) => e.target)));
    // A box that moves or scales without resizing (a deck's slide arriving) ends a transition.
    view.document.addEventListener('transitionend', () => queue([...widgets].map((el) => clipBoxes.get(el)).filter(Boolean)), true);
    fitObservers.set(view, ro);
  }
  return ro;
}

function followClip(el, connected) {
  const view = el.ownerDocument.defaultView;
  if (!view || typeof view.ResizeObserver !== 'function') return;
  const ro = observerFor(view);
  if (connected) {
    ro.observe(el);
    return;
  }
  ro.unobserve(el);
  const box = clipBoxes.get(el);
  if (box && ![...widgets].some((other) => clipBoxes.get(other) === box)) ro.unobserve(box);
  clipBoxes.delete(el);
}

/** Puts `state` under `id` in the query string with replaceState, keeping the page's history state. */
function writeUrl(id, state) {
  if (urlBroken) return;
  try {
    const loc = window.location;
    const search = urlState.write(loc.search, id, state);
    if (search === loc.search) return;
    const base = loc.href.replace(/[?#].*$/, '');
    window.history.replaceState(window.history.state, '', base + search + loc.hash);
  } catch (_) {
    urlBroken = true;  // sandboxed or opaque pages: keep working without a link
  }
}

/**
 * Stops, at the widget's shadow root, the key presses the widget uses: those its own code
 * handled (preventDefault) and those its focused control uses natively (ui/own-keys.js), so
 * the page's shortcuts on the document do not act on them too. A key kept on keydown is
 * kept on its keyup as well (some slide decks move on keyup).
 */
function keepOwnKeys(root) {
  // code -> the keydown it began with and whether its control uses it, noted on the way in
  // (capture): the widget's own handlers may stop the keydown before it bubbles back to root.
  const down = new Map();
  const own = (e) => {
    const el = e.composedPath()[0];
    return Boolean(el && el.nodeType === 1 && ownKey({ tag: el.localName, type: el.getAttribute('type'), role: el.getAttribute('role'), editable: el.isContentEditable }, e));
  };
  const kept = (d) => d.event.defaultPrevented || d.own;
  root.addEventListener('keydown', (e) => down.set(e.code || e.key, { event: e, own: own(e) }), { capture: true });
  root.addEventListener('keydown', (e) => {
    const d = down.get(e.code || e.key);
    if (d && d.event === e && kept(d)) e.stopPropagation();
  });
  root.addEventListener('keypress', (e) => { if (e.defaultPrevented || own(e)) e.stopPropagation(); });
  root.addEventListener('keyup', (e) => {
    const d = down.get(e.code || e.key);
    down.delete(e.code || e.key);
    if ((d && kept(d)) || own(e)) e.stopPropagation();
  });
}

module.exports = { keepOwnKeys, logOnce, wasmBlocked, pageUrlStateOff, track, connectedWidgets, duplicateId, hostTheme, writeUrl };

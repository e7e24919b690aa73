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
  if (connected) widgets.add(el);
  else widgets.delete(el);
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

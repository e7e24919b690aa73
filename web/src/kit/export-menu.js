'use strict';
// The "Export" menu beside a heatmap or chart: PNG, SVG, CSV, JSON and "Copy numbers",
// built from the figure data a widget hands over (files made in ui/export.js). Follows the
// ARIA menu-button pattern: Enter/Space/ArrowDown open it on the first item, arrow keys,
// Home and End move, Escape closes it and returns focus to the button, Tab leaves it.
// The list opens in the top layer (a manual popover placed from the button's rectangle), so
// an ancestor's overflow or containment (a host's overflow: hidden, content-visibility on
// the host's sections) cannot clip it; browsers without popovers place it absolutely as before.

const { h, uid } = require('./dom.js');
const exporter = require('../ui/export.js');
const { menuPosition } = require('../ui/menu-position.js');

const EXPORT_CSS = `
.al-export { position: relative; display: inline-block; }
.al-legend .al-export { margin-left: auto; }
.al-export-list { position: absolute; z-index: 3; right: 0; top: calc(100% + 4px); display: flex; flex-direction: column; min-width: calc(11 * var(--_rem));
  padding: calc(.25 * var(--_rem)); background: var(--_bg); border: 1px solid var(--_line); border-radius: 8px; box-shadow: 0 4px 14px rgb(0 0 0 / .2); }
.al-export-list[popover] { position: fixed; inset: auto; margin: 0; color: var(--_fg); font: inherit; overflow: visible; }
.al-export-list[popover]:not(:popover-open) { display: none; }
.al-export-list button { border: 0; background: transparent; text-align: left; border-radius: 4px; white-space: nowrap; }
.al-export-list button:hover, .al-export-list button:focus { background: var(--_panel); }
.al-export-fallback { display: block; margin-top: calc(.4 * var(--_rem)); }
.al-export-fallback textarea { display: block; width: min(calc(32 * var(--_rem)), 100%); min-height: calc(7 * var(--_rem)); font: .82em ui-monospace, Menlo, Consolas, monospace;
  color: var(--_fg); background: var(--_bg); border: 1px solid var(--_line); }
.al-chart-tools { display: flex; justify-content: flex-end; max-width: calc(34 * var(--_rem)); }
`;

const ITEMS = [
  ['png', 'PNG image'],
  ['svg', 'SVG image'],
  ['csv', 'CSV numbers'],
  ['json', 'JSON data'],
  ['copy', 'Copy numbers'],
];

function saveBlob(where, blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  where.append(a);
  a.click();
  a.remove();
  // The download has taken its own reference by now; a delay covers slower browsers.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A PNG of the figure at twice its CSS size, drawn on a canvas (no image loading). */
function pngBlob(doc, fig) {
  const l = exporter.layout(fig);
  const scale = 2;
  const canvas = doc.createElement('canvas');
  canvas.width = Math.ceil(l.width * scale);
  canvas.height = Math.ceil(l.height * scale);
  exporter.draw(canvas.getContext('2d'), l, scale);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('export: the browser could not make a PNG'))), 'image/png'));
}

/**
 * An export menu for one figure.
 * @param getFigure () => figure data (see ui/export.js), called when an item is chosen
 * @param opts { label: what is exported, for the button's accessible name }
 * @return { root } to place next to the figure (inside the widget)
 */
function exportMenu(getFigure, opts = {}) {
  const listId = uid('al-export');
  const what = opts.label || 'figure';
  const button = h('button', { type: 'button', class: 'al-export-button', 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-controls': listId,
    'aria-label': `Export ${what}` }, 'Export');
  const items = ITEMS.map(([id, label]) => h('button', { type: 'button', role: 'menuitem', tabindex: '-1', dataset: { export: id } }, label));
  const list = h('div', { id: listId, class: 'al-export-list', role: 'menu', 'aria-label': `Export ${what}`, hidden: true }, items);
  const status = h('p', { class: 'al-sr', role: 'status' });
  const fallback = h('div', { class: 'al-export-fallback', hidden: true });
  const root = h('div', { class: 'al-export', part: 'export' }, button, list, status, fallback);

  const popover = typeof list.showPopover === 'function';
  if (popover) list.setAttribute('popover', 'manual');
  const view = () => root.ownerDocument.defaultView;
  // A menu in the top layer is placed in the viewport: it follows its button when the page
  // (or any box around the widget) scrolls or the window is resized while it is open.
  const place = () => {
    const win = view();
    if (!popover || !win) return;
    // Rectangles are in viewport pixels, but an ancestor's CSS zoom (which the list inherits,
    // even in the top layer) multiplies the list's own left and top: divide it out.
    const zoom = list.currentCSSZoom || 1;
    const menu = list.getBoundingClientRect();
    const at = menuPosition(button.getBoundingClientRect(), { width: menu.width, height: menu.height },
      { width: win.document.documentElement.clientWidth || win.innerWidth, height: win.innerHeight });
    list.style.left = `${at.left / zoom}px`;
    list.style.top = `${at.top / zoom}px`;
  };
  let following = null;

  const isOpen = () => !list.hidden;
  const open = (index = 0) => {
    list.hidden = false;
    if (popover && !list.matches(':popover-open')) {
      list.showPopover();
      place();
      following = new AbortController();
      view().addEventListener('scroll', place, { capture: true, passive: true, signal: following.signal });
      view().addEventListener('resize', place, { signal: following.signal });
    }
    button.setAttribute('aria-expanded', 'true');
    items[(index + items.length) % items.length].focus();
  };
  const close = (refocus) => {
    if (!isOpen()) return;
    list.hidden = true;
    if (following) following.abort();
    following = null;
    if (popover && list.matches(':popover-open')) list.hidePopover();
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus();
  };

  // The browser closes a popover itself when the widget leaves the page: keep the state in step.
  if (popover) list.addEventListener('toggle', (e) => { if (e.newState === 'closed') close(false); });
  button.addEventListener('click', () => (isOpen() ? close(true) : open(0)));
  button.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      open(e.key === 'ArrowDown' ? 0 : -1);
    }
  });
  list.addEventListener('keydown', (e) => {
    const at = items.indexOf(e.target);
    const moves = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 };
    if (e.key in moves) {
      e.preventDefault();
      e.stopPropagation();
      items[(moves[e.key] + items.length) % items.length].focus();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close(true);
    } else if (e.key === 'Tab') close(false);
  });
  // Focus leaving the menu (a click elsewhere, Tab) closes it.
  root.addEventListener('focusout', (e) => {
    if (!e.relatedTarget || !root.contains(e.relatedTarget)) close(false);
  });
  items.forEach((item) => item.addEventListener('click', () => {
    close(true);
    run(item.dataset.export);
  }));

  async function run(kind) {
    try {
      const fig = getFigure();
      const name = (ext) => exporter.fileName(fig, ext);
      if (kind === 'png') saveBlob(root, await pngBlob(root.ownerDocument, fig), name('png'));
      else if (kind === 'svg') saveBlob(root, new Blob([exporter.toSVG(fig)], { type: 'image/svg+xml' }), name('svg'));
      // The byte-order mark makes Excel read the file as UTF-8 (tokens beyond ASCII).
      else if (kind === 'csv') saveBlob(root, new Blob(['\ufeff', exporter.toCSV(fig)], { type: 'text/csv' }), name('csv'));
      else if (kind === 'json') saveBlob(root, new Blob([exporter.toJSON(fig)], { type: 'application/json' }), name('json'));
      else if (kind === 'copy') {
        await copy(exporter.toTSV(fig));
        return;
      }
      status.textContent = `Saved ${name(kind)}`;
    } catch (err) {
      status.textContent = `Export failed: ${err && err.message ? err.message : err}`;
    }
  }

  async function copy(text) {
    try {
      // Sandboxed iframes and pages without the permission have no (working) clipboard.
      await navigator.clipboard.writeText(text);
      fallback.hidden = true;
      status.textContent = 'Copied the numbers (tab-separated: paste into a spreadsheet)';
    } catch (err) {
      const id = uid('al-copy');
      const area = h('textarea', { id, readonly: true, spellcheck: 'false', rows: '6', wrap: 'off' });
      area.value = text;
      fallback.replaceChildren(
        h('label', { for: id }, 'Copying is blocked here. The numbers are selected below: press Ctrl+C (\u2318C on a Mac) to copy them.'), area,
        h('button', { type: 'button', onclick: () => { fallback.hidden = true; button.focus(); } }, 'Close'));
      fallback.hidden = false;
      area.focus();
      area.select();
    }
  }

  return { root, button, list, open, close };
}

module.exports = { exportMenu, EXPORT_CSS, pngBlob, saveBlob };

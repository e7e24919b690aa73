'use strict';
// The model view of <model-attention>: every head of every layer as a thumbnail of its
// weights, a row per layer and a column per head. An ARIA grid with one tab stop: the arrow
// keys (and Home, End) move, Enter, Space, a click or a tap opens the head. The thumbnails are
// drawn one pixel per weight on a canvas per layer, painted a layer at a time so that a large
// model never holds the page in one long task.

const { h } = require('./dom.js');
const { VIRIDIS } = require('../ui/diverging.js');
const { pattern, layerName, headName } = require('../ui/attention-data.js');
const { move } = require('../ui/heatmap-model.js');

// The heatmaps' colour scale in 256 steps: weight w is drawn as step round(w * 255).
let table = null;
function colorTable() {
  if (!table) {
    table = new Uint8Array(256 * 3);
    for (let k = 0; k < 256; k++) table.set(VIRIDIS.rgb(k / 255), 3 * k);
  }
  return table;
}

/**
 * Paints one pattern (m x n weights, masked cells or null) into a layer's ImageData (all 0),
 * at column x0 of an image `width` pixels wide. A masked cell is a faint grey that lets the
 * widget's background through, so it reads as empty in the light and the dark theme.
 */
function paintPattern(pixels, width, x0, weights, masked, m, n) {
  const colors = colorTable();
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const k = i * n + j;
      const o = 4 * (i * width + x0 + j);
      if (masked && masked[k]) {
        pixels[o] = 128;
        pixels[o + 1] = 128;
        pixels[o + 2] = 140;
        pixels[o + 3] = 46;
        continue;
      }
      const w = weights[k];
      const c = 3 * (w >= 1 ? 255 : w > 0 ? Math.round(w * 255) : 0);
      pixels[o] = colors[c];
      pixels[o + 1] = colors[c + 1];
      pixels[o + 2] = colors[c + 2];
      pixels[o + 3] = 255;
    }
  }
}

/** Pixels between two heads' thumbnails in a layer's picture (transparent). */
const gapOf = (n) => Math.max(1, Math.round(n / 16));

class ModelView {
  /**
   * @param opts { onOpen(layer, head): a head chosen, describe(layer, head): its scores in words
   *   for its accessible name }
   */
  constructor(opts) {
    this.opts = opts;
    this.grid = h('div', { class: 'al-model-grid', role: 'grid', 'aria-label': 'Every head: a row per layer, a column per head; Enter opens one' });
    this.grid.addEventListener('keydown', (e) => this.onKey(e));
    this.root = h('div', { class: 'al-scroll al-model-scroll' }, this.grid);
    this.focus = [0, 0];
    this.open = null;
  }

  /**
   * Builds the grid for a decoded attention set; paint() then draws the thumbnails.
   * @param masked m x n booleans (row-major Uint8Array) of the cells a causal mask hides, or null
   */
  show(set, masked) {
    this.set = set;
    this.masked = masked;
    const { layers, heads, m, n } = set;
    this.cells = [];
    const rows = [h('div', { role: 'row' }, h('span', { role: 'columnheader', class: 'al-model-corner' }, h('span', { class: 'al-sr' }, 'layer')),
      Array.from({ length: heads }, (_, hd) => h('span', { role: 'columnheader', translate: 'no' }, set.headNames ? set.headNames[hd] : String(hd))))];
    // One canvas per layer behind its row of cells (144 canvases cost far more than 12 to
    // create, paint and composite): head k's thumbnail fills slot k of the canvas, the slots
    // as wide as the grid's columns, so each cell sits over its own thumbnail.
    this.canvases = [];
    const slot = n + gapOf(n);
    for (let l = 0; l < layers; l++) {
      const line = [];
      const canvas = h('canvas', { class: 'al-layer-picture', width: String(heads * slot), height: String(m), 'aria-hidden': 'true', style: { gridRow: String(l + 2) } });
      for (let hd = 0; hd < heads; hd++) {
        const cell = h('div', { role: 'gridcell', class: 'al-thumb', tabindex: '-1', 'aria-label': `${layerName(set, l)}, ${headName(set, hd)}: ${this.opts.describe(l, hd)}`,
          dataset: { layer: String(l), head: String(hd) }, style: { gridRow: String(l + 2), gridColumn: String(hd + 2) } });
        cell.addEventListener('click', () => this.choose(l, hd));
        cell.addEventListener('focus', () => { this.focus = [l, hd]; });
        line.push(cell);
      }
      this.cells.push(line);
      this.canvases.push(canvas);
      rows.push(h('div', { role: 'row' }, h('span', { role: 'rowheader', translate: 'no', style: { gridRow: String(l + 2) } }, set.layerNames ? set.layerNames[l] : String(l)), canvas, line));
    }
    this.grid.style.setProperty('--al-heads', String(heads));
    // Few heads take the width, up to 8.5 rem each; a deep model stays within about 32 rem of height.
    this.grid.style.setProperty('--al-thumb', String(Math.max(4, Math.min(8.5, 32 / layers))));
    this.grid.style.setProperty('--al-aspect', `${heads * slot} / ${m}`);
    // Few tokens: thumbnails are enlarged, and crisp squares read better than a blur.
    this.grid.classList.toggle('al-crisp', Math.max(m, n) <= 48);
    this.grid.replaceChildren(...rows);
    this.focus = [Math.min(this.focus[0], layers - 1), Math.min(this.focus[1], heads - 1)];
    this.cells[this.focus[0]][this.focus[1]].tabIndex = 0;
    this.markOpen(this.open);
  }

  /** Paints the thumbnails, one layer per step (a generator: the widget pauses between steps). */
  *paint() {
    const { layers, heads, m, n } = this.set;
    const slot = n + gapOf(n);
    for (let l = 0; l < layers; l++) {
      const ctx = this.canvases[l].getContext('2d');
      const img = ctx.createImageData(heads * slot, m);
      for (let hd = 0; hd < heads; hd++) paintPattern(img.data, heads * slot, hd * slot, pattern(this.set, l, hd), this.masked, m, n);
      ctx.putImageData(img, 0, 0);
      yield l;
    }
  }

  /** Marks the opened head (or none) with aria-selected and an outline. */
  markOpen(at) {
    this.open = at;
    if (!this.cells) return;
    this.cells.forEach((line, l) => line.forEach((cell, hd) => {
      const on = Boolean(at) && at[0] === l && at[1] === hd;
      cell.setAttribute('aria-selected', String(on));
      cell.classList.toggle('al-open', on);
    }));
  }

  /** Moves the grid's tab stop to a head (and the focus, when asked). */
  setFocus(l, hd, moveFocus = true) {
    const [pl, ph] = this.focus;
    if (this.cells[pl] && this.cells[pl][ph]) this.cells[pl][ph].tabIndex = -1;
    this.focus = [l, hd];
    const cell = this.cells[l][hd];
    cell.tabIndex = 0;
    if (moveFocus) cell.focus();
  }

  choose(l, hd) {
    this.setFocus(l, hd, false);
    this.opts.onOpen(l, hd);
  }

  onKey(e) {
    if (!this.cells) return;
    const [l, hd] = this.focus;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.choose(l, hd);
      return;
    }
    const next = move(e.key, l, hd, this.set.layers, this.set.heads);
    if (!next) return;
    e.preventDefault();
    e.stopPropagation();
    this.setFocus(next[0], next[1]);
  }
}

module.exports = { ModelView, paintPattern, colorTable };

'use strict';
// A heatmap of an attention matrix. Up to 32 x 32 it is an ARIA grid: token labels on
// both axes, optional numbers, masked cells hatched, arrow keys walk the cells (one tab
// stop). Larger matrices are drawn on one canvas (pixels written directly), still walked
// with the arrow keys. Either way the cell under the pointer or focus is read out in a
// visible line that is also a polite live region.

const { h, setText } = require('./dom.js');
const { VIRIDIS } = require('../ui/diverging.js');
const model = require('../ui/heatmap-model.js');
const { spokenLabel } = require('../ui/model-text.js');
const { exportMenu } = require('./export-menu.js');

const GRID_LIMIT = 32;  // above this many rows or columns, draw on a canvas
const MASK_RGB = [154, 154, 166];  // neutral grey: no viridis colour is grey
const HIDDEN_RGB = [226, 226, 232];  // a row kept back until a question is answered: pale, unlike any weight

class HeatmapView {
  /**
   * @param opts { label, onCell(cell) on focus/hover, onPick(cell) on click/Enter, digits,
   *   words: { rowWord, colWord, valueWord } for axis titles, readout and cell names,
   *   readout: an element to read cells out into (shared by small multiples), readoutPrefix,
   *   title, caption() and settings() for exported files (the legend carries the export menu);
   *   scale: a colour scale from ui/diverging.js (default viridis over [0, 1]), replaceable
   *   with setScale }
   */
  constructor(opts = {}) {
    this.opts = opts;
    this.scale = opts.scale || VIRIDIS;
    this.focus = [0, 0];
    const words = opts.words || {};
    this.rowWord = words.rowWord || 'query';
    this.colWord = words.colWord || 'key';
    // The value of the cell under the pointer or keyboard focus, in words: readable with the
    // numbers off, and announced (politely) to screen readers as focus moves.
    // Small multiples share one readout (opts.readout, an element of the widget's own).
    this.live = opts.readout || h('p', { class: 'al-readout', 'aria-live': 'polite' }, 'Tap, hover or focus a cell to read its value.');
    this.grid = h('div', { class: 'al-heatmap', part: 'heatmap', role: 'grid', 'aria-label': opts.label || 'Attention weights' });
    this.grid.addEventListener('keydown', (e) => this.onKey(e));
    this.canvas = h('canvas', { class: 'al-heatmap-canvas', part: 'heatmap', tabindex: '0', role: 'img', hidden: true, 'aria-label': opts.label || 'Attention weights' });
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
    this.canvas.addEventListener('focus', () => { this.drawCanvas(); this.announce(...this.focus); });
    // The ring marks the cell being read (by keys or a tap) only while the canvas has focus.
    this.canvas.addEventListener('blur', () => this.drawCanvas());
    this.canvas.addEventListener('click', (e) => this.onCanvasClick(e));
    this.canvas.addEventListener('mousemove', (e) => {
      const at = this.canvasAt(e);
      if (at && (!this.hover || at[0] !== this.hover[0] || at[1] !== this.hover[1])) this.show(this.canvasCell(...at));
      this.hover = at;
    });
    // The canvas has no labels of its own: the axis titles sit above it.
    this.canvasAxes = h('p', { class: 'al-axes', 'aria-hidden': 'true', hidden: true },
      h('span', {}, `rows: ${this.rowWord} \u2193`), h('span', {}, `columns: ${this.colWord} \u2192`));
    this.legendLow = h('span', {}, this.scale.low);
    this.legendBar = h('span', { class: 'al-legend-bar', style: { background: this.scale.gradient() }, 'aria-hidden': 'true' });
    this.legendHigh = h('span', {}, this.scale.high);
    // Keyed only while the picture has a masked cell (update), as in exported files.
    this.maskText = h('span', {}, ' masked (\u2212\u221e before softmax)');
    this.maskKey = h('span', { hidden: true }, h('span', { class: 'al-legend-mask', 'aria-hidden': 'true' }), this.maskText);
    this.legend = h('div', { class: 'al-legend', part: 'legend' }, this.legendLow, this.legendBar, this.legendHigh, this.maskKey);
    this.legend.append(exportMenu(() => this.figure(), { label: opts.title || opts.label }).root);
    this.scroller = h('div', { class: 'al-scroll' }, this.grid, this.canvas);
    this.root = h('div', { class: 'al-heatmap-wrap' }, this.canvasAxes, this.scroller, opts.readout ? null : this.live, this.legend);
    this.size = null;
  }

  /** What the key says a hatched cell is (default: masked with -inf before the softmax). */
  setMaskLabel(text) {
    this.maskText.textContent = ` ${text}`;
  }

  /** A new colour scale (a difference map's range changes with the data); redraw with update(). */
  setScale(scale) {
    this.scale = scale;
    this.legendLow.textContent = scale.low;
    this.legendHigh.textContent = scale.high;
    this.legendBar.style.background = scale.gradient();
  }

  /**
   * @param weights rows of numbers; masked rows of booleans; rowLabels, colLabels
   * @param showNumbers draw values inside cells
   */
  update({ weights, masked, rowLabels, colLabels, showNumbers = true, picked = null, hiddenRows = [], hiddenNote = null }) {
    // Rows a question is still open about stay out of the page in either mode, and out of exports;
    // hiddenNote(i) says why (the model's default: until the question is answered).
    this.hiddenRows = hiddenRows.slice();
    this.hiddenNote = hiddenNote;
    this.data = { weights, masked, rowLabels, colLabels, showNumbers, hiddenRows: this.hiddenRows };
    this.twice = { rows: model.repeatedLabels(rowLabels), cols: model.repeatedLabels(colLabels) };
    const rows = weights.length, cols = rows ? weights[0].length : 0;
    this.canvasMode = rows > GRID_LIMIT || cols > GRID_LIMIT;
    this.grid.hidden = this.canvasMode;
    this.canvasAxes.hidden = !this.canvasMode;
    this.root.classList.toggle('al-canvas-mode', this.canvasMode);
    this.canvas.hidden = !this.canvasMode;
    this.maskKey.hidden = !model.anyMasked(masked);
    if (this.canvasMode) {
      this.updateCanvas(weights, masked, rowLabels, colLabels);
      this.refreshReadout();
      return;
    }
    this.cellsModel = model.cells(weights, masked, rowLabels, colLabels, { digits: this.opts.digits || 2, ...this.opts.words, hiddenRows, hiddenNote, scale: this.scale });
    const key = `${rows}x${cols}|${rowLabels.join('\u0001')}|${colLabels.join('\u0001')}`;
    if (key !== this.size) this.build(rows, cols, rowLabels, colLabels);
    this.size = key;
    this.grid.classList.toggle('al-numbers', showNumbers);
    for (const row of this.cellsModel) {
      for (const c of row) {
        const el = this.cellEls[c.row][c.col];
        el.textContent = showNumbers || c.hidden ? c.text : '';
        el.setAttribute('aria-label', showNumbers || c.masked ? c.label : c.label.slice(c.text.length + 2));
        el.dataset.value = String(c.value);
        el.dataset.text = c.text;
        el.classList.toggle('al-masked', c.masked);
        el.classList.toggle('al-hidden-cell', Boolean(c.hidden));
        el.classList.toggle('al-nan', Boolean(c.nan));
        el.classList.toggle('al-picked', Boolean(picked && picked[0] === c.row && picked[1] === c.col));
        const bg = c.masked || c.hidden || c.nan ? '' : c.background;
        if (el.style.backgroundColor !== bg) {
          el.style.backgroundColor = bg;
          el.style.color = c.masked ? '' : c.foreground;
        }
      }
    }
    this.refreshReadout();
  }

  /** After new values, the readout (if it shows a cell) shows that cell's new value. */
  refreshReadout() {
    if (!this.shown) return;
    const [i, j] = this.shown;
    const rows = this.data.weights.length;
    if (i < rows && j < this.data.weights[0].length) setText(this.live, this.readoutText(this.cellAt(i, j)));
  }

  readoutText(c) {
    return `${this.opts.readoutPrefix || ''}${model.readout(c, { rowWord: this.rowWord, colWord: this.colWord, digits: this.opts.digits || 2, twice: this.twice })}`;
  }

  cellAt(i, j) {
    return this.canvasMode ? this.canvasCell(i, j) : this.cellsModel[i][j];
  }

  /** Shows one cell in the readout and tells the widget (onCell). */
  show(c) {
    this.shown = [c.row, c.col];
    // A grid cell says its value in its own name when it takes focus; a canvas has only this
    // readout to say which cell the arrow keys reached.
    this.live.setAttribute('aria-live', this.canvasMode ? 'polite' : 'off');
    setText(this.live, this.readoutText(c));
    if (this.opts.onCell) this.opts.onCell(c);
  }

  /** What the export menu saves: the numbers shown, their labels, and the settings. */
  figure() {
    const d = this.data, o = this.opts;
    const values = d.hiddenRows.length ? d.weights.map((row, i) => (d.hiddenRows.includes(i) ? row.map(() => null) : row)) : d.weights;
    return { kind: 'heatmap', title: o.title || o.label || 'Attention weights', caption: o.caption ? o.caption() : '', settings: o.settings ? o.settings() : {},
      rowLabels: d.rowLabels, colLabels: d.colLabels, values, masked: d.masked || null, showNumbers: d.showNumbers,
      rowWord: this.rowWord, colWord: this.colWord, scale: (this.scale.forExport && this.scale.forExport()) || this.scale };
  }

  build(rows, cols, rowLabels, colLabels) {
    // The key axis title is for the eye (a screen reader hears query and key in every cell's
    // name); the corner is the header of the row labels' column, so it names them: "query".
    // A label with a mark (\u2423, a token's space) is named in words.
    const said = (t) => (spokenLabel(t) !== t ? spokenLabel(t) : null);
    const keyTitle = h('div', { class: 'al-axis al-axis-key', 'aria-hidden': 'true' }, `${this.colWord} \u2192`);
    const header = h('div', { role: 'row' }, h('span', { role: 'columnheader', class: 'al-axis al-axis-query' },
      h('span', {}, this.rowWord, h('span', { 'aria-hidden': 'true' }, ' \u2193'))),
      colLabels.map((t) => h('span', { role: 'columnheader', title: t, translate: 'no', 'aria-label': said(t) }, t)));
    this.cellEls = [];
    const body = [];
    for (let i = 0; i < rows; i++) {
      const rowEls = [];
      for (let j = 0; j < cols; j++) {
        // Tokens are the data the numbers were computed from, and a translator may rewrite the numbers' decimal points.
        const cell = h('div', { role: 'gridcell', class: 'al-cell', tabindex: '-1', translate: 'no', dataset: { row: String(i), col: String(j) } });
        cell.addEventListener('focus', () => this.announce(i, j));
        cell.addEventListener('mouseenter', () => this.show(this.cellsModel[i][j]));
        cell.addEventListener('click', () => { this.setFocus(i, j, false); this.pick(i, j); });
        rowEls.push(cell);
      }
      this.cellEls.push(rowEls);
      body.push(h('div', { role: 'row' }, h('span', { role: 'rowheader', title: rowLabels[i], translate: 'no', 'aria-label': said(rowLabels[i]) }, rowLabels[i]), rowEls));
    }
    const longest = Math.max(1, ...rowLabels.map((t) => t.length));
    const rem = (x) => `calc(${x} * var(--_rem))`;
    // The first column holds the row labels and the "query \u2193" title: never narrower than the
    // title (bold, at .75 of the font: about half a rem per character, plus the padding). Up to 16
    // columns a cell holds its number (a picture without numbers may set a smaller --_cell-min).
    const first = Math.max(3.6, (this.rowWord.length + 2) * 0.5 + 0.6);
    this.grid.style.gridTemplateColumns = `minmax(${rem(first)}, ${rem(Math.max(first, Math.min(8, longest * 0.6 + 1)))}) repeat(${cols}, minmax(var(--_cell-min, ${rem(cols > 16 ? 0.9 : 2.4)}), ${rem(3.2)}))`;
    this.grid.classList.toggle('al-fits-numbers', cols <= 16);
    this.grid.setAttribute('aria-rowcount', String(rows + 1));
    this.grid.setAttribute('aria-colcount', String(cols + 1));
    this.grid.replaceChildren(keyTitle, header, ...body);
    // Chromium keeps a box's scroll-driven fade (styles.js) at its end when the box stops
    // scrolling while scrolled, where it should drop it: a new grid starts the fade afresh.
    if (this.scroller.getAnimations) for (const a of this.scroller.getAnimations()) { a.cancel(); a.play(); }
    const [fi, fj] = [Math.min(this.focus[0], rows - 1), Math.min(this.focus[1], cols - 1)];
    this.focus = [Math.max(0, fi), Math.max(0, fj)];
    if (rows && cols) this.cellEls[this.focus[0]][this.focus[1]].tabIndex = 0;
  }

  /** Canvas mode: one pixel per cell in an ImageData, scaled up without smoothing. */
  updateCanvas(weights, masked, rowLabels, colLabels) {
    const rows = weights.length, cols = weights[0].length;
    this.labels = { rows: rowLabels, cols: colLabels };
    this.values = weights;
    this.maskedRows = masked;
    const cell = Math.max(1, Math.min(12, Math.floor(512 / Math.max(rows, cols))));
    const small = this.small && this.small.width === cols && this.small.height === rows ? this.small : document.createElement('canvas');
    small.width = cols;
    small.height = rows;
    this.small = small;
    const sctx = small.getContext('2d');
    const img = sctx.createImageData(cols, rows);
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const [r, g, b] = this.hiddenRows.includes(i) ? HIDDEN_RGB
          : (masked && masked[i][j]) || Number.isNaN(weights[i][j]) ? MASK_RGB : this.scale.rgb(weights[i][j]);
        const o = 4 * (i * cols + j);
        img.data[o] = r;
        img.data[o + 1] = g;
        img.data[o + 2] = b;
        img.data[o + 3] = 255;
      }
    }
    sctx.putImageData(img, 0, 0);
    this.canvas.width = cols * cell;
    this.canvas.height = rows * cell;
    this.canvas.style.width = `${cols * cell}px`;
    this.canvas.style.maxWidth = '100%';
    this.cellPx = cell;
    this.canvas.setAttribute('aria-label', `${this.opts.label || 'Attention weights'}: ${rows} by ${cols}. Use the arrow keys to read cells.`);
    this.focus = [Math.min(this.focus[0], rows - 1), Math.min(this.focus[1], cols - 1)];
    this.drawCanvas();
    this.size = null;
  }

  drawCanvas() {
    if (!this.small) return;
    const ctx = this.canvas.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.small, 0, 0, this.canvas.width, this.canvas.height);
    if (this.ownerFocused()) {
      const [i, j] = this.focus, c = this.cellPx;
      ctx.lineWidth = 2;
      ctx.strokeStyle = '#ffffff';
      ctx.strokeRect(j * c - 1, i * c - 1, c + 2, c + 2);
      ctx.strokeStyle = '#000000';
      ctx.strokeRect(j * c - 3, i * c - 3, c + 6, c + 6);
    }
  }

  ownerFocused() {
    // Inside a shadow root the document's activeElement is the host, never the canvas.
    return this.canvas.getRootNode().activeElement === this.canvas;
  }

  canvasCell(i, j) {
    const masked = Boolean(this.maskedRows && this.maskedRows[i][j]);
    const c = model.cells([[this.values[i][j]]], [[masked]], [this.labels.rows[i]], [this.labels.cols[j]],
      { digits: this.opts.digits || 2, ...this.opts.words, hiddenRows: this.hiddenRows.includes(i) ? [0] : [], hiddenNote: this.hiddenNote && (() => this.hiddenNote(i)), scale: this.scale })[0][0];
    return { ...c, row: i, col: j };
  }

  /** The [row, col] under a pointer event on the canvas, or null outside it. */
  canvasAt(e) {
    const rect = this.canvas.getBoundingClientRect();
    if (!rect.width) return null;
    const scale = this.canvas.width / rect.width;
    const j = Math.floor(((e.clientX - rect.left) * scale) / this.cellPx);
    const i = Math.floor(((e.clientY - rect.top) * scale) / this.cellPx);
    if (i < 0 || j < 0 || i >= this.values.length || j >= this.values[0].length) return null;
    return [i, j];
  }

  onCanvasClick(e) {
    const at = this.canvasAt(e);
    if (!at) return;
    const [i, j] = at;
    this.focus = [i, j];
    this.drawCanvas();
    this.announce(i, j);
  }

  setFocus(i, j, moveFocus = true) {
    if (this.canvasMode) {
      this.focus = [i, j];
      this.drawCanvas();
      this.announce(i, j);
      return;
    }
    const [pi, pj] = this.focus;
    if (this.cellEls[pi] && this.cellEls[pi][pj]) this.cellEls[pi][pj].tabIndex = -1;
    this.focus = [i, j];
    const el = this.cellEls[i][j];
    el.tabIndex = 0;
    if (moveFocus) el.focus();
    else this.announce(i, j);
  }

  announce(i, j) {
    this.show(this.cellAt(i, j));
  }

  pick(i, j) {
    if (this.opts.onPick) this.opts.onPick(this.cellAt(i, j));
  }

  onKey(e) {
    const rows = this.canvasMode ? this.values.length : this.cellEls ? this.cellEls.length : 0;
    if (!rows) return;
    const cols = this.canvasMode ? this.values[0].length : this.cellEls[0].length;
    const [i, j] = this.focus;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.pick(i, j);
      return;
    }
    const next = model.move(e.key, i, j, rows, cols);
    if (!next) return;
    e.preventDefault();
    e.stopPropagation();
    this.setFocus(next[0], next[1]);
  }
}

module.exports = { HeatmapView };

'use strict';
// A heatmap of an attention matrix as an ARIA grid: token labels on both axes, a legend,
// optional numbers, masked cells hatched. Arrow keys walk the cells (one tab stop) and
// the focused cell is announced through a live region.

const { h } = require('./dom.js');
const colors = require('../ui/colors.js');
const model = require('../ui/heatmap-model.js');

class HeatmapView {
  /**
   * @param opts { label, onCell(cell) on focus/hover, onPick(cell) on click/Enter, digits }
   */
  constructor(opts = {}) {
    this.opts = opts;
    this.focus = [0, 0];
    this.live = h('p', { class: 'al-sr', 'aria-live': 'polite' });
    this.grid = h('div', { class: 'al-heatmap', role: 'grid', 'aria-label': opts.label || 'Attention weights' });
    this.grid.addEventListener('keydown', (e) => this.onKey(e));
    this.legend = h('div', { class: 'al-legend' },
      h('span', {}, '0'), h('span', { class: 'al-legend-bar', style: { background: colors.gradient() }, 'aria-hidden': 'true' }), h('span', {}, '1'),
      h('span', {}, h('span', { class: 'al-legend-mask', 'aria-hidden': 'true' }), ' masked (\u2212\u221e before softmax)'));
    this.root = h('div', { class: 'al-heatmap-wrap' }, h('div', { class: 'al-scroll' }, this.grid), this.legend, this.live);
    this.size = null;
  }

  /**
   * @param weights rows of numbers; masked rows of booleans; rowLabels, colLabels
   * @param showNumbers draw values inside cells
   */
  update({ weights, masked, rowLabels, colLabels, showNumbers = true, picked = null }) {
    const rows = weights.length, cols = rows ? weights[0].length : 0;
    this.cellsModel = model.cells(weights, masked, rowLabels, colLabels, { digits: 2, ...this.opts.words });
    const key = `${rows}x${cols}|${rowLabels.join('\u0001')}|${colLabels.join('\u0001')}`;
    if (key !== this.size) this.build(rows, cols, rowLabels, colLabels);
    this.size = key;
    this.grid.classList.toggle('al-numbers', showNumbers);
    for (const row of this.cellsModel) {
      for (const c of row) {
        const el = this.cellEls[c.row][c.col];
        el.textContent = showNumbers ? c.text : '';
        el.setAttribute('aria-label', showNumbers || c.masked ? c.label : c.label.slice(c.text.length + 2));
        el.dataset.value = String(c.value);
        el.classList.toggle('al-masked', c.masked);
        el.classList.toggle('al-picked', Boolean(picked && picked[0] === c.row && picked[1] === c.col));
        el.style.background = c.masked ? '' : c.background;
        el.style.color = c.masked ? '' : c.foreground;
      }
    }
  }

  build(rows, cols, rowLabels, colLabels) {
    const header = h('div', { role: 'row' }, h('span', { role: 'columnheader', 'aria-label': 'query \\ key' }, ''),
      colLabels.map((t) => h('span', { role: 'columnheader', title: t }, t)));
    this.cellEls = [];
    const body = [];
    for (let i = 0; i < rows; i++) {
      const rowEls = [];
      for (let j = 0; j < cols; j++) {
        const cell = h('div', { role: 'gridcell', class: 'al-cell', tabindex: '-1', dataset: { row: String(i), col: String(j) } });
        cell.addEventListener('focus', () => this.announce(i, j));
        cell.addEventListener('mouseenter', () => this.opts.onCell && this.opts.onCell(this.cellsModel[i][j]));
        cell.addEventListener('click', () => { this.setFocus(i, j, false); this.pick(i, j); });
        rowEls.push(cell);
      }
      this.cellEls.push(rowEls);
      body.push(h('div', { role: 'row' }, h('span', { role: 'rowheader', title: rowLabels[i] }, rowLabels[i]), rowEls));
    }
    const longest = Math.max(1, ...rowLabels.map((t) => t.length));
    this.grid.style.gridTemplateColumns = `minmax(2rem, ${Math.min(8, longest * 0.6 + 1)}rem) repeat(${cols}, minmax(${cols > 16 ? '0.9rem' : '2.4rem'}, 3.2rem))`;
    this.grid.setAttribute('aria-rowcount', String(rows + 1));
    this.grid.setAttribute('aria-colcount', String(cols + 1));
    this.grid.replaceChildren(header, ...body);
    const [fi, fj] = [Math.min(this.focus[0], rows - 1), Math.min(this.focus[1], cols - 1)];
    this.focus = [Math.max(0, fi), Math.max(0, fj)];
    if (rows && cols) this.cellEls[this.focus[0]][this.focus[1]].tabIndex = 0;
  }

  setFocus(i, j, moveFocus = true) {
    const [pi, pj] = this.focus;
    if (this.cellEls[pi] && this.cellEls[pi][pj]) this.cellEls[pi][pj].tabIndex = -1;
    this.focus = [i, j];
    const el = this.cellEls[i][j];
    el.tabIndex = 0;
    if (moveFocus) el.focus();
    else this.announce(i, j);
  }

  announce(i, j) {
    const c = this.cellsModel[i][j];
    this.live.textContent = c.label;
    if (this.opts.onCell) this.opts.onCell(c);
  }

  pick(i, j) {
    if (this.opts.onPick) this.opts.onPick(this.cellsModel[i][j]);
  }

  onKey(e) {
    if (!this.cellEls || !this.cellEls.length) return;
    const [i, j] = this.focus;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.pick(i, j);
      return;
    }
    const next = model.move(e.key, i, j, this.cellEls.length, this.cellEls[0].length);
    if (!next) return;
    e.preventDefault();
    e.stopPropagation();
    this.setFocus(next[0], next[1]);
  }
}

module.exports = { HeatmapView };

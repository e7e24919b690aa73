'use strict';
// The head view of <model-attention>: one layer's heads over the tokens, queries in the left
// column and keys in the right, a line from each query to each key whose strength is the
// weight, one colour per head. Hovering or focusing a token keeps only its lines (a click or
// tap keeps them until the next one); a line under the picture says, per head, where that
// token's weight goes most. The lines are drawn on one canvas; the tokens are buttons with
// text, so a keyboard or a screen reader can walk them. Works for cross-attention too.

const { h, uid, setText } = require('./dom.js');
const { headLines, strongest, columnLayout, headColor, LEVELS, MIN_WEIGHT } = require('../ui/head-lines.js');
const { layerName, headName, pairView } = require('../ui/attention-data.js');
const { fixed } = require('../ui/format.js');
const { repeatedLabels } = require('../ui/heatmap-model.js');
const { tokenLabel, spokenLabel } = require('../ui/model-text.js');

const ROW_EM = 1.6;  // token rows, in units of the widget's font size
// A sentence pair (sentenceBStart), filtered as BertViz's head view does: which queries over which keys.
const PAIRS = [['all', 'all tokens'], ['aa', 'sentence A \u2192 A'], ['ab', 'sentence A \u2192 B'], ['ba', 'sentence B \u2192 A'], ['bb', 'sentence B \u2192 B']];
const LINES_WIDTH = 160;  // CSS px between the columns (narrower on a phone: CSS)

class HeadView {
  /** @param opts { onChange(): the reader changed the layer, heads or token (for state) } */
  constructor(opts) {
    this.opts = opts;
    const layerId = uid();
    this.layerSelect = h('select', { id: layerId, onchange: () => this.setLayer(Number(this.layerSelect.value)) });
    const pairId = uid();
    this.pairSelect = h('select', { id: pairId, onchange: () => this.setPair(this.pairSelect.value) }, PAIRS.map(([value, label]) => h('option', { value }, label)));
    this.pairLabel = h('label', { for: pairId, hidden: true }, 'attention from', this.pairSelect);
    this.headBoxes = h('div', { class: 'al-head-picks', role: 'group', 'aria-label': 'Heads shown' });
    this.controls = h('div', { class: 'al-controls', part: 'controls' },
      h('label', { for: layerId }, 'layer', this.layerSelect), this.pairLabel,
      h('button', { type: 'button', onclick: () => this.setHeads(this.allHeads()) }, 'all heads'),
      h('button', { type: 'button', onclick: () => this.setHeads([]) }, 'no heads'));
    this.left = h('div', { class: 'al-token-column al-token-left' });
    this.right = h('div', { class: 'al-token-column al-token-right' });
    this.canvas = h('canvas', { class: 'al-lines', 'aria-hidden': 'true' });
    this.titles = [h('span', { class: 'al-head-title al-token-left' }, 'queries'), h('span', { class: 'al-head-title' }), h('span', { class: 'al-head-title' }, 'keys')];
    this.body = h('div', { class: 'al-head-lines' }, this.titles, this.left, this.canvas, this.right);
    this.live = h('p', { class: 'al-readout', 'aria-live': 'polite' }, 'Hover, focus or tap a token to see only its lines.');
    this.root = h('div', { class: 'al-head-view' }, this.controls, this.headBoxes,
      h('div', { class: 'al-scroll al-head-scroll', tabindex: '-1' }, this.body), this.live,
      h('p', { class: 'al-muted' }, `Lines fainter than a weight of ${MIN_WEIGHT} are left out.`));
    this.layer = 0;
    this.heads = [];
    this.pair = 'all';
    this.focus = null;   // the token whose lines are shown, while hovered or focused
    this.pinned = null;  // the token a click or tap chose
  }

  allHeads() {
    return Array.from({ length: this.set.heads }, (_, k) => k);
  }

  /**
   * A new attention set: the layer and heads are kept where they still exist. A sentence pair
   * is drawn as the chosen part (`pair`: all, aa, ab, ba, bb): its queries over its keys.
   */
  show(full, { layer = this.layer, heads, pair = this.pair } = {}) {
    this.full = full;
    this.pair = full.sentenceBStart && PAIRS.some(([id]) => id === pair) ? pair : 'all';
    this.pairSelect.value = this.pair;
    this.pairLabel.hidden = !full.sentenceBStart;
    const set = this.set = pairView(full, this.pair);
    this.layer = Math.min(layer, set.layers - 1);
    this.heads = (heads || (this.heads.length ? this.heads : this.allHeads())).filter((k) => k < set.heads);
    this.focus = this.pinned = null;
    this.layerSelect.replaceChildren(...Array.from({ length: set.layers }, (_, l) => h('option', { value: String(l) }, layerName(set, l))));
    this.layerSelect.value = String(this.layer);
    this.boxes = Array.from({ length: set.heads }, (_, k) => {
      const id = uid();
      const box = h('input', { id, type: 'checkbox', onchange: () => this.setHeads(this.allHeads().filter((j) => this.boxes[j].checked)) });
      return { box, label: h('label', { for: id }, box, h('span', { class: 'al-swatch', style: { background: headColor(k) }, 'aria-hidden': 'true' }), headName(set, k)) };
    });
    this.headBoxes.replaceChildren(...this.boxes.map((b) => b.label));
    this.boxes = this.boxes.map((b) => b.box);
    const cross = Boolean(set.queryTokens);
    setText(this.titles[0], cross ? 'queries' : 'as queries');
    setText(this.titles[2], cross ? 'keys' : 'as keys');
    // Positions as in the whole text (a sentence-pair filter shows part of it); special tokens
    // ([CLS], [SEP]) are named as such.
    const off = set.offsets || { row: 0, col: 0 };
    const token = (raw, side, index) => {
      const text = tokenLabel(raw, true);
      const flags = side === 'key' ? set.special : set.querySpecial || (!set.queryTokens && set.special);
      const isSpecial = Boolean(flags && flags[index]);
      const at = index + (side === 'query' ? off.row : off.col);
      const b = h('button', { type: 'button', class: isSpecial ? 'al-token al-special' : 'al-token', translate: 'no', title: text, dataset: { side, index: String(index) },
        'aria-label': `${spokenLabel(text)} (${isSpecial ? 'special token, ' : ''}${side} ${at})` }, text);
      b.addEventListener('mouseenter', () => this.setFocus({ side, index }));
      b.addEventListener('mouseleave', () => this.setFocus(null));
      b.addEventListener('focus', () => this.setFocus({ side, index }));
      b.addEventListener('blur', () => this.setFocus(null));
      b.addEventListener('click', () => this.pin({ side, index }));
      return b;
    };
    this.left.replaceChildren(...(set.queryTokens || set.tokens).map((t, i) => token(t, 'query', i)));
    this.right.replaceChildren(...set.tokens.map((t, j) => token(t, 'key', j)));
    this.twice = { query: repeatedLabels(set.queryTokens || set.tokens), key: repeatedLabels(set.tokens) };
    this.draw();
  }

  setLayer(l) {
    this.layer = l;
    this.layerSelect.value = String(l);
    this.draw();
    this.opts.onChange();
  }

  setPair(pair) {
    this.show(this.full, { pair });
    this.opts.onChange();
  }

  setHeads(heads) {
    this.heads = heads.slice().sort((a, b) => a - b);
    this.draw();
    this.opts.onChange();
  }

  setFocus(at) {
    this.focus = at;
    this.draw();
  }

  pin(at) {
    const same = this.pinned && this.pinned.side === at.side && this.pinned.index === at.index;
    this.pinned = same ? null : at;
    this.draw();
  }

  /** The token whose lines are shown: the hovered or focused one, else the pinned one. */
  current() {
    return this.focus || this.pinned;
  }

  draw() {
    if (!this.set) return;
    this.boxes.forEach((box, k) => { box.checked = this.heads.includes(k); });
    const at = this.current();
    for (const b of [...this.left.children, ...this.right.children]) {
      const mine = Boolean(at) && b.dataset.side === at.side && Number(b.dataset.index) === at.index;
      b.classList.toggle('al-token-current', mine);
      b.setAttribute('aria-pressed', String(Boolean(this.pinned) && b.dataset.side === this.pinned.side && Number(b.dataset.index) === this.pinned.index));
    }
    this.drawLines(at);
    this.describe(at);
  }

  drawLines(at) {
    const { m, n } = this.set;
    const rem = parseFloat(getComputedStyle(this.root).getPropertyValue('--_rem')) || 15;
    const rowHeight = ROW_EM * rem;
    const layout = columnLayout(m, n, rowHeight);
    const width = this.canvas.clientWidth || LINES_WIDTH;
    const ratio = (this.root.ownerDocument.defaultView || {}).devicePixelRatio || 1;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(layout.height * ratio);
    this.canvas.style.height = `${layout.height}px`;
    this.body.style.setProperty('--al-row', `${rowHeight}px`);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, layout.height);
    ctx.lineWidth = 1.5;
    for (const group of headLines(this.set, this.layer, this.heads, at)) {
      ctx.strokeStyle = headColor(group.head);
      ctx.globalAlpha = group.level / LEVELS;
      ctx.beginPath();
      const p = group.pairs;
      for (let k = 0; k < p.length; k += 2) {
        ctx.moveTo(0, layout.y(p[k]));
        ctx.lineTo(width, layout.y(p[k + 1]));
      }
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }

  /** The live line: for the token in focus, where each shown head puts (or takes) most weight. */
  describe(at) {
    const set = this.set;
    if (!at) {
      setText(this.live, this.heads.length ? `${layerName(set, this.layer)}: ${this.heads.length} of ${set.heads} heads shown. Hover, focus or tap a token to see only its lines.`
        : 'No head is chosen: tick one above.');
      return;
    }
    const off = set.offsets || { row: 0, col: 0 };
    const own = at.side === 'query' ? (set.queryTokens || set.tokens)[at.index] : set.tokens[at.index];
    const other = at.side === 'query' ? set.tokens : (set.queryTokens || set.tokens);
    const otherSide = at.side === 'query' ? 'key' : 'query';
    // A token that occurs twice among the other side's is named with its position.
    const name = (j) => `\u201c${other[j]}\u201d${this.twice[otherSide].has(other[j]) ? ` (${otherSide} ${j + (otherSide === 'query' ? off.row : off.col)})` : ''}`;
    const parts = strongest(set, this.layer, this.heads, at)
      .map((s) => `${headName(set, s.head)} ${fixed(s.weight, 2)} ${at.side === 'query' ? 'on' : 'from'} ${name(s.index)}`);
    setText(this.live, `\u201c${own}\u201d (${at.side} ${at.index + (at.side === 'query' ? off.row : off.col)}), ${layerName(set, this.layer)}: ${parts.length ? `${parts.join('; ')}.` : 'no head chosen.'}`);
  }
}

module.exports = { HeadView };

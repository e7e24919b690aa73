'use strict';
// <attention-trainer>'s heads: one card a head with its weights on the fixed example painted in
// a canvas (one pixel a cell), the engine's probe scores as bars beside it (the induction task),
// and an export menu; redrawn from each snapshot the runner sends.

const { h, setText } = require('./dom.js');
const { exportMenu } = require('./export-menu.js');
const colors = require('../ui/colors.js');
const { fixed, counted } = require('../ui/format.js');
const { FORMED } = require('../ui/training-log.js');

// The bars under each head (induction task): the engine's scores on the probe.
const HEAD_BARS = [
  { key: 'previousTokenFirstCopy', name: 'previous, first copy', cls: 'al-bar-prev' },
  { key: 'previousToken', name: 'previous, every row', cls: 'al-bar-prev al-bar-all' },
  { key: 'induction', name: 'induction', cls: 'al-bar-ind' },
];
// Other tasks show the pictures alone: one empty list, so that a redraw knows its cards are
// the ones it needs (a new [] each time rebuilt them, and closed a head's open export menu).
const NO_BARS = Object.freeze([]);

/** A head's scores in words. */
function headScoresText(s) {
  return `previous-token score ${fixed(s.previousTokenFirstCopy, 2)} on the first copy, ${fixed(s.previousToken, 2)} on every row; induction score ${fixed(s.induction, 2)}`;
}

/**
 * The cards of every head, in `box`. draw(snapshot) repaints them, building them again when the
 * model's shape or the task's bars change; figure(index) is one head as an export figure.
 * @param box the element the cards go in; exampleLine the line that says what they show;
 *   settings() the widget's link state (for exports)
 */
class TrainerHeads {
  constructor(box, exampleLine, settings, latest) {
    this.box = box;
    this.exampleLine = exampleLine;
    this.settings = settings;
    this.latest = latest;  // () => { snap, info }: the newest snapshot, which an export shows even before it is drawn
    this.cards = null;
    this.bars = null;
    this.drawn = null;
  }

  /** Repaints from `snap` (patterns and scores) for a model described by `info`; nothing when it is the last one drawn. */
  draw(snap, info) {
    if (!snap || !info || snap === this.drawn) return;  // the heads change with a new snapshot only
    this.drawn = snap;
    const { layers, heads } = info.options;
    const tokens = info.example;
    const n = tokens.length;
    setText(this.exampleLine, `The example (token ids): ${tokens.join(' ')}. Each square shows one head\u2019s weights on it after ${counted(snap.step, 'step')}: row i is where token i looks, brighter is more weight, the empty triangle is the future, hidden by the causal mask.`);
    // The probe's scores mean something for the induction task only: other tasks show the pictures alone.
    const bars = info.recordsHeads ? HEAD_BARS : NO_BARS;
    const cards = this.cards && this.cards.length === layers * heads && this.bars === bars ? this.cards : this.build(layers, heads, n, bars);
    snap.scores.forEach((s, k) => {
      const card = cards[k];
      paint(card.canvas, snap.patterns, k * n * n, n);
      bars.forEach((b, i) => {
        card.bars[i].style.width = `${Math.round(100 * s[b.key])}%`;
        setText(card.texts[i], fixed(s[b.key], 2));
      });
      const formed = bars.length > 0 && s.induction >= FORMED;
      card.root.classList.toggle('al-formed', formed);
      card.view.setAttribute('aria-label', `Layer ${s.layer}, head ${s.head}${bars.length ? `: ${headScoresText(s)}${formed ? ', an induction head' : ''}` : ''}.`);
    });
  }

  /** Marks the cards of the heads knocked out ([layer, head] pairs) in the knock-out mode. */
  markKnocked(knocked) {
    if (!this.cards) return;
    const heads = this.cards.length / (this.box.children.length || 1);
    this.cards.forEach((card, i) => {
      const on = knocked.some(([l, k]) => l * heads + k === i);
      card.root.classList.toggle('al-knocked', on);
      setText(card.caption, `head ${i % heads}${on ? ' \u00b7 knocked out' : ''}`);
    });
  }

  /** Forgets what was drawn: the next draw() paints whatever snapshot it gets. */
  clear() {
    this.drawn = null;
  }

  build(layers, heads, n, bars) {
    this.cards = [];
    this.bars = bars;
    const rows = [];
    for (let l = 0; l < layers; l++) {
      const row = h('div', { class: 'al-trainer-layer', role: 'group', 'aria-label': `Layer ${l}` }, h('p', { class: 'al-trainer-layer-name' }, `layer ${l}`));
      for (let k = 0; k < heads; k++) {
        const index = l * heads + k;
        const canvas = h('canvas', { width: String(n), height: String(n), class: 'al-trainer-canvas', 'aria-hidden': 'true' });
        const fills = bars.map((b) => h('span', { class: `al-bar ${b.cls}` }));
        const texts = bars.map(() => h('span', { class: 'al-trainer-score' }));
        // The focusable picture (its label: the head's scores) and, beside it, not inside it,
        // the head's export menu: an interactive control inside role="img" is hidden from
        // assistive technology (axe: nested-interactive).
        const view = h('div', { class: 'al-trainer-head-view', tabindex: '0', role: 'img' }, canvas,
          bars.length ? h('div', { class: 'al-trainer-bars', 'aria-hidden': 'true' },
            bars.flatMap((b, i) => [h('span', { class: 'al-trainer-bar-name' }, b.name), texts[i], h('span', { class: 'al-trainer-track' }, fills[i])])) : null);
        const caption = h('figcaption', { 'aria-hidden': 'true' }, `head ${k}`);
        const root = h('figure', { class: 'al-trainer-head' }, caption, view,
          h('div', { class: 'al-trainer-head-export' }, exportMenu(() => this.figure(index), { label: `layer ${l} head ${k}` }).root));
        this.cards.push({ root, view, canvas, caption, bars: fills, texts });
        row.append(root);
      }
      rows.push(row);
    }
    this.box.replaceChildren(...rows);
    return this.cards;
  }

  /** One head's weights on the example as an export figure (heatmap). */
  figure(index) {
    const { snap, info } = this.latest();
    const tokens = info.example.map(String);
    const n = tokens.length, s = snap.scores[index];
    const values = [], masked = [];
    for (let i = 0; i < n; i++) {
      values.push(Array.from(snap.patterns.subarray((index * n + i) * n, (index * n + i + 1) * n)));
      masked.push(tokens.map((_, j) => j > i));
    }
    return {
      kind: 'heatmap', title: `Layer ${s.layer}, head ${s.head} after ${counted(snap.step, 'step')}`,
      caption: `Weights of one head on the example (token ids); rows are queries.${info.recordsHeads ? ` ${headScoresText(s).replace(/^p/, 'P')}.` : ''}`,
      settings: this.settings(), rowLabels: tokens, colLabels: tokens, values, masked,
    };
  }
}

// The viridis colour of each weight, in 1/255 steps: a redraw looks colours up, allocating nothing.
let palette = null;

/** Draws one head's n x n weights into its canvas (one pixel a cell; CSS scales it up). */
function paint(canvas, patterns, offset, n) {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  if (!palette) {
    palette = new Uint8Array(3 * 256);
    for (let i = 0; i < 256; i++) palette.set(colors.rgb(i / 255), 3 * i);
  }
  const image = canvas.alImage || (canvas.alImage = ctx.createImageData(n, n));
  const data = image.data;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const at = 4 * (i * n + j);
      if (j > i) {
        data[at + 3] = 0;  // masked: the card's background shows
        continue;
      }
      const c = 3 * Math.round(255 * Math.min(1, Math.max(0, patterns[offset + i * n + j])));
      data[at] = palette[c];
      data[at + 1] = palette[c + 1];
      data[at + 2] = palette[c + 2];
      data[at + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
}

module.exports = { TrainerHeads, HEAD_BARS, headScoresText };
